@testable import AdminCommands
import JSONRPC
import Testing

@Suite("adctl call reads its params strictly", .timeLimit(.minutes(1)))
struct CallTests {
    @Test("none, an object or an array are taken as they are")
    func taken() throws {
        #expect(try Call.parseParams(nil) == nil)
        #expect(try Call.parseParams(#"{"id": 7}"#) == ["id": 7])
        #expect(try Call.parseParams("[1, \"a\"]") == [1, "a"])
    }

    @Test("a scalar, or text that is not JSON, is refused in one line")
    func refused() {
        #expect(throws: CommandFailure("params must be a JSON object or array")) { try Call.parseParams("7") }
        #expect(throws: CommandFailure("params must be a JSON object or array")) { try Call.parseParams("\"x\"") }
        do {
            _ = try Call.parseParams("{id: 7}")
            Issue.record("taken")
        } catch {
            #expect(error.reason.hasPrefix("params are not JSON: "), "\(error.reason)")
        }
    }
}
