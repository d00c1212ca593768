import JSONRPC
import LaunchAdAPI
import LaunchAdTesting
import Testing

@Suite("deliveryd acknowledgements on the wire", .timeLimit(.minutes(2)))
struct AcknowledgementTests {
    /// The JSON-RPC messages in `bytes` (ZMTP frames carry each message's text whole, with no CURVE): every
    /// `{"jsonrpc"` that begins a JSON object that parses.
    static func messages(in bytes: [UInt8]) -> [JSONValue] {
        let start = Array(#"{"jsonrpc""#.utf8)
        var found: [JSONValue] = []
        var index = 0
        while index + start.count <= bytes.count {
            guard bytes[index..<index + start.count].elementsEqual(start) else {
                index += 1
                continue
            }
            // The object's end: braces counted outside strings.
            var depth = 0, inString = false, escaped = false, end: Int?
            for position in index..<bytes.count {
                let byte = bytes[position]
                if inString {
                    if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
                } else if byte == UInt8(ascii: "\"") {
                    inString = true
                } else if byte == UInt8(ascii: "{") {
                    depth += 1
                } else if byte == UInt8(ascii: "}") {
                    depth -= 1
                    if depth == 0 { end = position; break }
                }
            }
            guard let end else { break }
            // A message cut by another connection's bytes does not parse; the scan goes on past its start.
            guard let message = try? JSONParser.parse(Array(bytes[index...end])) else {
                index += 1
                continue
            }
            found.append(message)
            index = end + 1
        }
        return found
    }

    @Test("""
        a save is acknowledged as a notification, with the seq it holds; a heartbeat the edge is level with, as a call \
        once in ten seconds and as notifications between
        """)
    func notificationAfterSave() async throws {
        try await DeliveryServiceTests.withCampaignFixture { fixture, admin, creative in
            try await withStopping(TCPProxy(upstream: fixture.endpoints["sync"]!, recording: true)) { proxy in
                try await withStopping(fixture.startEdge("edge-ack", sync: proxy.endpoint)) { edge in
                    let created = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(creative: creative))
                    #expect(await eventually(timeout: .seconds(10)) {
                        (try? await CampaignFixture.acknowledgedSeq(admin, edge: "edge-ack")) == created.seq
                    })
                    // A heartbeat comes each second; the edge acknowledges one it is level with by a call once no call was made
                    // in the last ten seconds. A heartbeat of seq 0 that came before the campaign may have had that call (the
                    // edge is ready before it); then the call at the campaign's seq comes up to ten seconds later.
                    var acks: [JSONValue] = []
                    func calls() -> [JSONValue] { acks.filter { $0["id"] != nil && $0["params"]?["appliedSeq"]?.intValue == Int(created.seq) } }
                    func notifications() -> [JSONValue] { acks.filter { $0["id"] == nil && $0["params"]?["appliedSeq"]?.intValue == Int(created.seq) } }
                    func read() { acks = Self.messages(in: proxy.sentUpstream).filter { $0["method"] == "edge.ack" } }
                    #expect(await eventually(timeout: .seconds(15)) { read(); return !calls().isEmpty }, "\(acks)")
                    #expect(notifications().contains { $0["params"]?["edgeId"] == "edge-ack" }, "\(acks)")
                    // The heartbeats after it, as notifications: three more seconds bring three more, and no second call.
                    let (callsBefore, notificationsBefore) = (calls().count, notifications().count)
                    #expect(await eventually(timeout: .seconds(6)) { read(); return notifications().count >= notificationsBefore + 3 }, "\(acks)")
                    #expect(calls().count == callsBefore, "\(acks)")
                    // Ten seconds after the first, a heartbeat is acknowledged by a call again (its answer would say a refusal).
                    #expect(await eventually(timeout: .seconds(12)) { read(); return calls().count > callsBefore }, "\(acks)")
                    // Each notification says a seq the edge had saved: never one it had not reached.
                    #expect(acks.filter { $0["id"] == nil }.allSatisfy { ($0["params"]?["appliedSeq"]?.intValue ?? .max) <= Int(created.seq) }, "\(acks)")
                    await admin.close()
                }
            }
        }
    }
}
