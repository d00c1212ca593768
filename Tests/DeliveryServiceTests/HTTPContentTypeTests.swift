@testable import DeliveryService
import Foundation
import Testing

@Suite("POST /rpc's Content-Type: the media types taken and refused", .timeLimit(.minutes(1)))
struct HTTPContentTypeTests {
    /// The rule as it was written with Foundation (the type before ';', trimmed of Unicode's spaces and tab, lower-cased),
    /// kept here so that the table stays pinned to it wherever the two agree.
    static func foundationRule(_ value: String) -> Bool {
        let type = value.split(separator: ";", maxSplits: 1).first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        return type == "application/json" || type == "application/json-rpc"
    }

    static let taken = [
        "application/json", "application/json-rpc", "APPLICATION/JSON", "Application/Json-RPC", "application/json; charset=utf-8",
        "application/json;charset=UTF-8", "application/json ; charset=utf-8", " application/json", "application/json ",
        "\tapplication/json\t", " \t application/json-rpc \t ; q=1", "application/json;", "application/json;;;",
        "application/json; charset=\"x;y\"",
    ]
    static let refused = [
        "", " ", ";", "application/jso", "application/jsonx", "application/json-rp", "application/json-rpcs",
        "application/json,", "application/json, text/plain", "application/ json", "application /json", "application/json\r",
        "text/json", "application/x-json", "application/javascript", "text/plain", "*/*", "application/*",
        "application\u{0}/json", "application/json\u{0}", "applicAtion/json\u{301}", "\u{212A}", "application/jsonrpc",
        "application/json\u{0B}", "application/json\u{0C}", "\napplication/json", "application/json\n",
    ]
    /// Where the Foundation rule erred: Unicode's spaces other than space and tab (RFC 9110's optional whitespace is
    /// space and tab alone), and an empty type before ';' (its split dropped empty pieces, so a parameter was taken
    /// for the type).
    static let refusedNow = [
        "application/json\u{A0}", "\u{A0}application/json", "\u{3000}application/json", "application/json\u{2009}; a=b",
        "; application/json", ";;application/json-rpc",
    ]

    @Test("the types taken, with parameters and space or tab around them, in any case", arguments: taken)
    func takes(_ value: String) {
        #expect(HTTPRequestSummary.isJSON(value))
        #expect(Self.foundationRule(value))
    }

    @Test("the types refused: others, near misses, control bytes, other separators", arguments: refused)
    func refuses(_ value: String) {
        #expect(!HTTPRequestSummary.isJSON(value))
        #expect(!Self.foundationRule(value))
    }

    @Test("Unicode's other spaces are not optional whitespace, a type must come before ';' (the Foundation rule took both)", arguments: refusedNow)
    func refusesWhereFoundationTook(_ value: String) {
        #expect(!HTTPRequestSummary.isJSON(value))
        #expect(Self.foundationRule(value))
    }

    @Test("a request without Content-Type is refused")
    func absent() {
        let summary = HTTPRequestSummary(method: "POST", path: "/rpc", contentType: nil, contentLength: nil, expectsContinue: false, closes: false)
        #expect(!summary.isJSON)
    }
}
