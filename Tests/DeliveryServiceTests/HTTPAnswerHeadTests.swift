@testable import DeliveryService
import Foundation
import LaunchAdTesting
import Testing

@Suite("The edge's HTTP heads: Expect and Content-Length read, Date and Content-Length in its own answers", .timeLimit(.minutes(2)))
struct HTTPAnswerHeadTests {
    static let formatter: DateFormatter = {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter
    }()

    @Test("the date as RFC 9110 writes it: its own example, the epoch, leap days, centuries, against DateFormatter")
    func rendering() {
        func text(_ seconds: Int) -> String { String(decoding: HTTPDate.field(seconds), as: UTF8.self) }
        #expect(text(784_111_777) == "Date: Sun, 06 Nov 1994 08:49:37 GMT\r\n")
        #expect(text(0) == "Date: Thu, 01 Jan 1970 00:00:00 GMT\r\n")
        #expect(text(951_782_400) == "Date: Tue, 29 Feb 2000 00:00:00 GMT\r\n")
        #expect(text(4_107_542_399) == "Date: Sun, 28 Feb 2100 23:59:59 GMT\r\n")
        #expect(text(4_107_542_400) == "Date: Mon, 01 Mar 2100 00:00:00 GMT\r\n")
        #expect(text(-1) == "Date: Wed, 31 Dec 1969 23:59:59 GMT\r\n")
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let seconds = Int.random(in: 0...8_000_000_000, using: &generator)
            let expected = "Date: " + Self.formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds))) + "\r\n"
            #expect(text(seconds) == expected, "\(seconds)")
        }
    }

    @Test("a connection renders the date again once the second has changed, not before; the wall clock's by default")
    func refresh() {
        func address(_ date: HTTPDate) -> UnsafeRawPointer? { date.field.withUnsafeBytes { $0.baseAddress } }
        var date = HTTPDate()
        date.refresh(now: 784_111_777)
        let first = address(date)
        #expect(date.value == "Sun, 06 Nov 1994 08:49:37 GMT")
        // The same second: the same bytes, not rendered again (a new rendering is a new array).
        date.refresh(now: 784_111_777)
        #expect(address(date) == first)
        date.refresh(now: 784_111_778)
        #expect(date.value == "Sun, 06 Nov 1994 08:49:38 GMT")
        date.refresh()
        let now = Self.formatter.date(from: date.value)
        #expect(now.map { abs($0.timeIntervalSinceNow) < 3 } == true, "\(date.value)")
    }

    @Test("POST /rpc, GET /launch-ad (answered and refused), 415, 405 and 204: one Date near now, Content-Length the body's")
    func heads() async throws {
        try await HTTPRPCTests.withLiveEdge { edge, _, _, _ in
            let connection = try HTTPTestConnection(edge.endpoints["http"]!)
            let query = #"{"jsonrpc":"2.0","id":1,"method":"launch.query","params":{"app":"shop","platform":"ios","appVersion":"5.2.0","deviceId":"d-1","screen":{"width":1179,"height":2556}}}"#
            let requests: [([UInt8], Int, Bool)] = [
                (HTTPTestConnection.rpc(query), 200, false),
                (HTTPTestConnection.request("GET", "/launch-ad?app=shop&platform=ios&appVersion=5.2.0&deviceId=d-1&screen=1179x2556"), 200, false),
                (HTTPTestConnection.request("GET", "/launch-ad?app=shop"), 400, false),
                (HTTPTestConnection.rpc(query, contentType: "text/plain"), 415, false),
                (HTTPTestConnection.request("GET", "/rpc"), 405, false),
                (HTTPTestConnection.rpc(#"{"jsonrpc":"2.0","method":"edge.status"}"#), 204, true),
            ]
            for (request, status, bodyless) in requests {
                #expect(connection.send(request))
                let answer = try #require(connection.response(bodyless: bodyless))
                #expect(answer.status == status)
                let dates = answer.headers.filter { $0.name.lowercased() == "date" }
                #expect(dates.count == 1, "\(status)")
                let date = try #require(dates.first.flatMap { Self.formatter.date(from: $0.value) }, "\(status): \(dates)")
                #expect(abs(date.timeIntervalSinceNow) < 3, "\(status)")
                let lengths = answer.headers.filter { $0.name.lowercased() == "content-length" }
                if status == 204 {
                    #expect(lengths.isEmpty)
                } else {
                    #expect(lengths.map(\.value) == [String(answer.body.count)], "\(status)")
                    #expect(!answer.body.isEmpty)
                }
            }
            #expect(!connection.closedByPeer)
        }
    }

    @Test("Expect: 100-continue in any case gets 100 Continue before the body, Content-Length over the limit 413 before it; other expectations none")
    func expectations() async throws {
        try await HTTPRPCTests.withLiveEdge { edge, _, _, _ in
            let address = edge.endpoints["http"]!
            let call = Array(#"{"jsonrpc":"2.0","id":1,"method":"edge.status"}"#.utf8)
            func head(_ fields: String) -> [UInt8] {
                Array("POST /rpc HTTP/1.1\r\nHost: edge\r\ncontent-TYPE: application/json\r\n\(fields)\r\n".utf8)
            }
            for expect in ["100-continue", "100-Continue", "100-CONTINUE"] {
                let connection = try HTTPTestConnection(address)
                #expect(connection.send(head("EXPECT: \(expect)\r\nContent-Length: \(call.count)\r\n")))
                #expect(connection.response(timeout: .seconds(2))?.status == 100, "\(expect)")
                #expect(connection.send(call))
                #expect(connection.response()?.status == 200, "\(expect)")
            }
            // Not 100-continue: no interim answer; the answer comes once the body does.
            let other = try HTTPTestConnection(address)
            #expect(other.send(head("Expect: 100-continuex\r\nContent-Length: \(call.count)\r\n")))
            #expect(other.response(timeout: .milliseconds(500)) == nil)
            #expect(other.send(call))
            #expect(other.response()?.status == 200)
            // A length over the limit is refused from the head, whatever the case of its name.
            let large = try HTTPTestConnection(address)
            #expect(large.send(head("CONTENT-length: 100000000\r\n")))
            #expect(large.response(timeout: .seconds(2))?.status == 413)
        }
    }
}
