import Foundation
import JSONRPC
@testable import LaunchAdRuntime
import Logging
import Testing

/// The services' two log handlers: the text line laid out as swift-log's `StreamLogHandler` lays it out, the JSON
/// line as one object with its fields, and the times as each writes them.
@Suite("Log handlers", .timeLimit(.minutes(1)))
struct LogHandlerTests {
    struct Refused: Error, CustomStringConvertible {
        var description: String { "the disk is full" }
    }

    static func event(_ message: Logger.Message, metadata: Logger.Metadata? = nil, error: (any Error)? = nil) -> LogEvent {
        LogEvent(level: .info, message: message, error: error, metadata: metadata, source: "DeliveryService",
                 file: "DeliveryService/SyncEngine.swift", function: "apply", line: 1)
    }

    @Test("a text line: time, level, label, the handler's and the event's metadata sorted by key, source, message")
    func textLine() {
        var handler = TextLogHandler(label: "deliveryd", logLevel: .info)
        #expect(handler.line(Self.event("took a snapshot"), time: "T") == "T info deliveryd: [DeliveryService] took a snapshot\n")
        handler[metadataKey: "edge_id"] = "edge-1"
        #expect(handler.line(Self.event("took a snapshot"), time: "T") == "T info deliveryd: edge_id=edge-1 [DeliveryService] took a snapshot\n")
        let applied = handler.line(Self.event("applied a change", metadata: ["seq": "7", "campaign_id": "3", "edge_id": "other"]), time: "T")
        #expect(applied == "T info deliveryd: campaign_id=3 edge_id=other seq=7 [DeliveryService] applied a change\n")
        let failed = handler.line(Self.event("cannot save", error: Refused()), time: "T")
        #expect(failed == "T info deliveryd: edge_id=edge-1 error.message=the disk is full error.type=ServicesTests.LogHandlerTests.Refused [DeliveryService] cannot save\n")
        #expect(TextLogHandler(label: "", logLevel: .info).line(Self.event("ready"), time: "T") == "T info: [DeliveryService] ready\n")
    }

    @Test("a JSON line: one object of time, level, label, message and the metadata, which cannot replace those four")
    func jsonLine() throws {
        var handler = JSONLogHandler(label: "relayd", logLevel: .info)
        handler[metadataKey: "relay_id"] = "relay-1"
        let event = Self.event("applied \"changes\"\n", metadata: [
            "count": "3", "message": "not this", "apps": .array(["shop", "news"]), "by": .dictionary(["b": "2", "a": "1"]),
        ])
        let bytes = handler.line(event, time: "2026-11-28T04:39:06.548Z").bytes
        #expect(bytes.last == 0x0A && !bytes.dropLast().contains(0x0A))
        #expect(String(decoding: bytes, as: UTF8.self) == #"{"apps":["shop","news"],"by":{"a":"1","b":"2"},"count":"3","label":"relayd","#
            + #""level":"info","message":"applied \"changes\"\n","relay_id":"relay-1","time":"2026-11-28T04:39:06.548Z"}"# + "\n")
        let failed = try #require(JSONParser.parse(handler.line(Self.event("cannot save", error: Refused()), time: "T").bytes).objectValue)
        #expect(failed["error.message"]?.stringValue == "the disk is full")
        #expect(failed["relay_id"]?.stringValue == "relay-1" && failed["message"]?.stringValue == "cannot save")
    }

    @Test("times: local to the second with its offset, and UTC to the millisecond, as Foundation formats them")
    func times() throws {
        let second = 1_795_841_356  // 2026-11-28T04:49:16Z
        #expect(LogClock.shared.utcMilliseconds(at: (second, 48)) == "2026-11-28T04:49:16.048Z")
        #expect(LogClock.shared.utcMilliseconds(at: (second + 1, 999)) == "2026-11-28T04:49:17.999Z")
        // The local form names the offset, so it is the same instant whatever the machine's zone.
        let local = LogClock.shared.localSeconds(at: second)
        let parsed = try Date(local, strategy: Date.ISO8601FormatStyle(timeZone: .gmt).year().month().day()
            .time(includingFractionalSeconds: false).timeZone(separator: .omitted))
        #expect(parsed == Date(timeIntervalSince1970: TimeInterval(second)))
        // The same second asked again is the form kept; now is now.
        #expect(LogClock.shared.localSeconds(at: second) == local)
        let now = try #require(try? Date(LogClock.shared.utcMilliseconds(), strategy: .iso8601.year().month().day()
            .time(includingFractionalSeconds: true)))
        #expect(abs(now.timeIntervalSinceNow) < 5)
    }
}
