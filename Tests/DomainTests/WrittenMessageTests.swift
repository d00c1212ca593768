import JSONRPC
import LaunchAdAPI
import LaunchAdDomain
import Testing

/// Messages the services write directly rather than through `Codable` (the report answer, a creative's facts, an
/// acknowledgement and a relay's batch of them); these hold each to the bytes its `Codable` encoding gives.
@Suite("messages written directly", .timeLimit(.minutes(1)))
struct WrittenMessageTests {
    static func written(_ value: some JSONWritable) -> String {
        var writer = JSONWriter()
        value.write(json: &writer)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    static func encoded(_ value: some Encodable) throws -> String {
        String(decoding: try JSONValueEncoder().encodeJSON(value), as: UTF8.self)
    }

    @Test("the report answer written directly is byte for byte its Codable encoding")
    func reportAnswer() throws {
        for result in [LaunchReportResult(accepted: 0, duplicates: 0), LaunchReportResult(accepted: 100, duplicates: -1),
                       LaunchReportResult(accepted: .max, duplicates: .min)] {
            #expect(Self.written(result) == (try Self.encoded(result)))
        }
    }

    @Test("a creative's facts written directly are byte for byte their Codable encoding")
    func creativeFacts() throws {
        for facts in [CreativeFacts(sha256: String(repeating: "a", count: 64), contentType: "image/png", width: 1179, height: 2556, size: 20_045),
                      CreativeFacts(sha256: String(repeating: "a", count: 64), contentType: "image/gif", width: 640, height: 960, size: 20_045,
                                    durationMs: 3_500),
                      CreativeFacts(sha256: "", contentType: "image/\"x\"\u{7f}\n", width: .min, height: 0, size: .max, durationMs: .max)] {
            #expect(Self.written(facts) == (try Self.encoded(facts)))
        }
        // Facts kept before durations were (an edge's state file, an older peer's answer) read as a still image's.
        let older = try JSONParser.parse(#"{"sha256":"\#(String(repeating: "a", count: 64))","contentType":"image/gif","width":640,"height":960,"size":9}"#)
        #expect(try JSONValueDecoder(rejectUnknownKeys: true).decode(CreativeFacts.self, from: older)
                == CreativeFacts(sha256: String(repeating: "a", count: 64), contentType: "image/gif", width: 640, height: 960, size: 9))
    }

    @Test("an acknowledgement and a relay's batch of them written directly are byte for byte their Codable encoding")
    func acknowledgement() throws {
        for ack in [EdgeAck(edgeId: "edge-1", region: "cn-east", epoch: "e0", appliedSeq: 0),
                    EdgeAck(edgeId: "\"edge\"\n\u{e9}", region: "", epoch: "", appliedSeq: .max, via: ["relay-2", "relay-1"]),
                    EdgeAck(edgeId: "e", region: "r", epoch: "x", appliedSeq: -1, via: [])] {
            #expect(Self.written(ack) == (try Self.encoded(ack)))
        }
        // A relay's batch of them, as it passes them upstream.
        for batch in [EdgeAcks(acks: []), EdgeAcks(acks: [EdgeAck(edgeId: "edge-1", region: "cn-east", epoch: "e0", appliedSeq: 3, via: ["relay-1"]),
                                                          EdgeAck(edgeId: "edge-2", region: "", epoch: "e0", appliedSeq: .max)])] {
            #expect(Self.written(batch) == (try Self.encoded(batch)))
        }
    }
}
