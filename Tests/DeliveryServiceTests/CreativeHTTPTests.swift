@testable import DeliveryService
import Testing

@Suite("the creative route's Range and If-None-Match", .timeLimit(.minutes(1)))
struct CreativeHTTPTests {
    typealias Answer = CreativeHTTP.RangeAnswer

    @Test("a Range header asks for one part, the whole body, or nothing the body has", arguments: [
        ("bytes=0-0", Answer.part(0, 0)), ("bytes=1-3", .part(1, 3)), ("bytes=10-", .part(10, 99)), ("bytes=99-", .part(99, 99)),
        ("bytes=-10", .part(90, 99)), ("bytes=-100", .part(0, 99)), ("bytes=-1000", .part(0, 99)),
        // An end past the last byte, however large, is the last byte; so is a suffix longer than the body.
        ("bytes=0-99", .part(0, 99)), ("bytes=5-1000", .part(5, 99)), ("bytes=0-99999999999999999999", .part(0, 99)),
        ("bytes=-99999999999999999999", .part(0, 99)),
        // The unit is case-insensitive, and whitespace around the range is allowed.
        ("Bytes=1-3", .part(1, 3)), ("bytes= 1-3 ", .part(1, 3)),
        // Nothing the body has.
        ("bytes=100-", .unsatisfiable), ("bytes=100-200", .unsatisfiable), ("bytes=99999999999999999999-", .unsatisfiable),
        ("bytes=-0", .unsatisfiable),
        // Not a range the server takes: it answers the whole body, as without the header.
        ("bytes=0-0,10-19", .whole), ("bytes=0-0,", .whole), ("items=0-5", .whole), ("bytes=5-1", .whole), ("bytes=abc", .whole),
        ("bytes=1-x", .whole), ("bytes=+1-3", .whole), ("bytes=-", .whole), ("bytes=", .whole), ("bytes 0-5", .whole), ("", .whole),
    ])
    func ranges(_ header: String, _ expected: Answer) {
        #expect(CreativeHTTP.ranged(header, size: 100) == expected)
    }

    @Test("an empty body has no range to give")
    func emptyBody() {
        #expect(CreativeHTTP.ranged("bytes=0-", size: 0) == .unsatisfiable)
        #expect(CreativeHTTP.ranged("bytes=-5", size: 0) == .unsatisfiable)
    }

    @Test("If-None-Match names the representation by a weak comparison: the tag with or without W/, in a list, or *", arguments: [
        (#""abc""#, true), (#"W/"abc""#, true), (#""x", "abc""#, true), (#""x",W/"abc""#, true), ("*", true),
        (#""abd""#, false), (#""x", "y""#, false), ("abc", false), (#"W/"ab""#, false), ("", false),
    ])
    func ifNoneMatch(_ header: String, _ expected: Bool) {
        #expect(CreativeHTTP.matches(header, etag: #""abc""#) == expected)
    }
}
