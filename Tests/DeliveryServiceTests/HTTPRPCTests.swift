@testable import DeliveryService
import Foundation
import JSONRPC
import LaunchAdAPI
import LaunchAdDomain
import LaunchAdTesting
import Testing
import ZeroMQ
import ZMQRPC

@Suite("POST /rpc and GET /launch-ad on the edge's HTTP address", .timeLimit(.minutes(3)))
struct HTTPRPCTests {
    /// campaignd and an edge in process, one live campaign applied; the body gets the edge, the admin client and
    /// the campaign.
    static func withLiveEdge(configure: (inout DeliveryServiceConfiguration) -> Void = { _ in },
                             _ body: (InProcessEdge, RPCClient, Campaign, InProcessCampaignService) async throws -> Void) async throws {
        try await DeliveryServiceTests.withCampaignd { fixture, admin, creative in
            try await withEdge("edge-http", connectedTo: fixture, configure: { configure(&$0) }) { edge in
                var fields = CampaignFixture.fields(creative: creative)
                fields.jump = Jump(type: .url, value: "https://shop.example.com/1212")
                let created = try await admin.call(AdminAPI.campaignCreate, fields)
                #expect(await edge.waitFor(seq: created.seq, creatives: 1))
                try await body(edge, admin, created.campaign, fixture)
            }
        }
    }

    /// What the client socket answers `text`: the reply frame's bytes, or `nil` for none.
    static func overZeroMQ(_ peer: TestPeer, _ text: String) async throws -> [UInt8]? {
        try peer.send([[], Array(text.utf8)])
        guard let reply = try await peer.receive(timeout: .milliseconds(500)) else { return nil }
        return reply.last
    }

    @Test("every client method, batches, notifications and errors: the same bytes over HTTP as over the client socket")
    func sameBytes() async throws {
        try await Self.withLiveEdge { edge, _, campaign, fixture in
            let peer = try TestPeer(fixture.context, type: .dealer, endpoint: edge.endpoints["client"]!)
            let http = try HTTPTestConnection(edge.endpoints["http"]!)
            let sha = campaign.creatives[0].sha256
            let query = #"{"app":"shop","platform":"ios","appVersion":"5.2.0","deviceId":"d-7","screen":{"width":1179,"height":2556}}"#
            // Calls answered the same however often they are made (reports get fresh event ids each time).
            let calls: [(String, Bool)] = [
                (#"{"jsonrpc":"2.0","id":1,"method":"launch.query","params":\#(query)}"#, true),
                (#"{ "jsonrpc" : "2.0", "method" : "launch.query", "params" : \#(query), "id" : "s" }"#, true),
                (#"{"jsonrpc":"2.0","id":2,"method":"launch.prefetch","params":{"app":"shop","platform":"ios","appVersion":"5.2.0","cached":["\#(String(repeating: "a", count: 64))"]}}"#, true),
                (#"{"jsonrpc":"2.0","id":3,"method":"launch.report","params":{"events":[{"eventId":"EVENT","type":"impression","campaignId":\#(campaign.id),"deviceId":"d-7"}]}}"#, true),
                (#"{"jsonrpc":"2.0","id":4,"method":"creative.get","params":{"sha256":"\#(sha)","offset":0,"length":40}}"#, true),
                (#"{"jsonrpc":"2.0","id":5,"method":"rpc.discover"}"#, true),
                (#"[{"jsonrpc":"2.0","id":6,"method":"launch.query","params":\#(query)},{"jsonrpc":"2.0","method":"launch.query","params":\#(query)},{"jsonrpc":"2.0","id":7,"method":"nope"}]"#, true),
                (#"{"jsonrpc":"2.0","id":8,"method":"launch.query","params":{"app":"shop"}}"#, true),
                (#"{"jsonrpc":"2.0","id":9,"method":"launch.query","params":{"app":"shop","platform":"ios","appVersion":"5.2.0","deviceId":""}}"#, true),
                (#"{"jsonrpc":"2.0","id":10,"method":"no.such"}"#, true),
                (#"{"jsonrpc":"2.0","id":11,"method":"launch.query","params":\#(query)"#, true),  // a parse error
                (#"{"jsonrpc":"1.0","id":12,"method":"launch.query"}"#, true),                    // an invalid request
                (#"[]"#, true), (#"[1,2]"#, true), ("", true), ("null", true),
                (#"{"jsonrpc":"2.0","method":"launch.query","params":\#(query)}"#, false),        // a notification
                (#"[{"jsonrpc":"2.0","method":"edge.status"}]"#, false),                           // a batch of notifications
            ]
            for (index, (template, answered)) in calls.enumerated() {
                let zmqText = template.replacingOccurrences(of: "EVENT", with: "z-\(index)")
                let httpText = template.replacingOccurrences(of: "EVENT", with: "h-\(index)")
                let overZMQ = try await Self.overZeroMQ(peer, zmqText)
                #expect(http.send(HTTPTestConnection.rpc(httpText)))
                let response = try #require(http.response(), "no HTTP answer to \(template)")
                if answered {
                    #expect(response.status == 200, "\(template)")
                    #expect(response.header("Content-Type") == "application/json")
                    #expect(response.body == overZMQ, "\(template): \(response.text) vs \(overZMQ.map { String(decoding: $0, as: UTF8.self) } ?? "nothing")")
                } else {
                    #expect(response.status == 204 && response.body.isEmpty, "\(template)")
                    // The client socket answers a REQ-shaped envelope's notification with an empty frame.
                    #expect(overZMQ == nil || overZMQ == [])
                }
            }
            // edge.status reads the sync status, which a heartbeat may move between two calls: equal once in a few tries.
            let status = #"{"jsonrpc":"2.0","id":13,"method":"edge.status"}"#
            #expect(try await eventually {
                let overZMQ = try await Self.overZeroMQ(peer, status)
                guard http.send(HTTPTestConnection.rpc(status)), let response = http.response() else { return false }
                return response.status == 200 && response.body == overZMQ
            })
        }
    }

    @Test("statuses: 405 with Allow, 415, 413 by length and by chunks, 204; keep-alive and pipelined answers in order")
    func statuses() async throws {
        try await Self.withLiveEdge { edge, _, _, _ in
            let address = edge.endpoints["http"]!
            let call = #"{"jsonrpc":"2.0","id":1,"method":"edge.status"}"#
            let connection = try HTTPTestConnection(address)
            connection.send(HTTPTestConnection.request("GET", "/rpc"))
            let notAllowed = try #require(connection.response())
            #expect(notAllowed.status == 405 && notAllowed.header("Allow") == "POST")
            connection.send(HTTPTestConnection.rpc(call, contentType: "text/plain"))
            #expect(connection.response()?.status == 415)
            connection.send(HTTPTestConnection.request("POST", "/rpc", body: Array(call.utf8)))
            #expect(connection.response()?.status == 415)
            for type in ["application/json; charset=utf-8", "application/json-rpc", "Application/JSON"] {
                connection.send(HTTPTestConnection.rpc(call, contentType: type))
                #expect(connection.response()?.status == 200, "\(type)")
            }
            // Still the same connection: keep-alive.
            #expect(!connection.closedByPeer)
            // A refused HEAD has no body: the answer after it is read as sent.
            connection.send(HTTPTestConnection.request("HEAD", "/rpc") + HTTPTestConnection.rpc(#"{"jsonrpc":"2.0","id":"after","method":"edge.status"}"#))
            let refusedHead = try #require(connection.response(bodyless: true))
            #expect(refusedHead.status == 405 && refusedHead.header("Allow") == "POST")
            let afterHead = try #require(connection.response())
            #expect(afterHead.status == 200 && afterHead.text.contains(#""id":"after""#), "\(afterHead.status) \(afterHead.text)")

            // Three calls sent at once, with a route Hummingbird answers between them: answered in order.
            var pipelined = HTTPTestConnection.rpc(#"{"jsonrpc":"2.0","id":"first","method":"edge.status"}"#)
            pipelined += HTTPTestConnection.request("GET", "/creatives/\(String(repeating: "0", count: 64))")
            pipelined += HTTPTestConnection.rpc(#"{"jsonrpc":"2.0","id":"third","method":"edge.status"}"#)
            connection.send(pipelined)
            let first = try #require(connection.response()), second = try #require(connection.response()), third = try #require(connection.response())
            #expect(first.status == 200 && first.text.contains(#""id":"first""#))
            #expect(second.status == 404)
            #expect(third.status == 200 && third.text.contains(#""id":"third""#))
            // Hummingbird's routes around own answers: each answer in its request's place, not Hummingbird's first.
            let missing = "/creatives/\(String(repeating: "0", count: 64))"
            pipelined = HTTPTestConnection.request("GET", missing) + HTTPTestConnection.rpc(#"{"jsonrpc":"2.0","id":"b","method":"edge.status"}"#)
            pipelined += HTTPTestConnection.request("GET", missing) + HTTPTestConnection.rpc(#"{"jsonrpc":"2.0","id":"d","method":"edge.status"}"#)
            pipelined += HTTPTestConnection.request("GET", "/nowhere") + HTTPTestConnection.rpc(#"{"jsonrpc":"2.0","id":"f","method":"edge.status"}"#)
            connection.send(pipelined)
            var answers: [(Int, String)] = []
            for _ in 0..<6 {
                let response = try #require(connection.response())
                let id = response.status == 200 ? try JSONParser.parse(Array(response.text.utf8))["id"]?.stringValue : nil
                answers.append((response.status, id ?? ""))
            }
            #expect(answers.map(\.0) == [404, 200, 404, 200, 404, 200])
            #expect(answers.map(\.1) == ["", "b", "", "d", "", "f"], "\(answers)")

            let large = try HTTPTestConnection(address)
            large.send(HTTPTestConnection.rpc(String(repeating: " ", count: 70_000) + call))
            #expect(large.response()?.status == 413)
            #expect(large.closes(within: .seconds(2)))
            // A body in chunks, with no length: refused once it passes the limit.
            let chunked = try HTTPTestConnection(address)
            chunked.send(Array("POST /rpc HTTP/1.1\r\nHost: edge\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n".utf8))
            for _ in 0..<20 { chunked.send(Array("1000\r\n\(String(repeating: " ", count: 4096))\r\n".utf8)) }
            #expect(chunked.response()?.status == 413)
            // Within the limit, in chunks: answered.
            let small = try HTTPTestConnection(address)
            small.send(Array("POST /rpc HTTP/1.1\r\nHost: edge\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n".utf8))
            let bytes = Array(call.utf8)
            small.send(Array("\(String(bytes.count / 2, radix: 16))\r\n".utf8) + bytes[..<(bytes.count / 2)] + Array("\r\n".utf8))
            small.send(Array("\(String(bytes.count - bytes.count / 2, radix: 16))\r\n".utf8) + bytes[(bytes.count / 2)...] + Array("\r\n0\r\n\r\n".utf8))
            #expect(small.response()?.status == 200)
            // Connection: close is honoured.
            let closing = try HTTPTestConnection(address)
            closing.send(HTTPTestConnection.request("POST", "/rpc", headers: [("Content-Type", "application/json"), ("Connection", "close")],
                                                    body: Array(call.utf8)))
            #expect(closing.response()?.status == 200)
            #expect(closing.closes(within: .seconds(2)))
        }
    }

    @Test("a body still coming takes no place among those in flight, slow bodies get 408, idle and slow-header connections are closed")
    func boundsAndTimeouts() async throws {
        try await Self.withLiveEdge(configure: {
            $0.httpMaxInFlight = 1
            $0.httpIdleTimeout = .seconds(1)
            $0.httpBodyTimeout = .seconds(1)
        }) { edge, _, _, _ in
            let address = edge.endpoints["http"]!
            let call = Array(#"{"jsonrpc":"2.0","id":1,"method":"edge.status"}"#.utf8)
            let holder = try HTTPTestConnection(address)
            let request = HTTPTestConnection.request("POST", "/rpc", headers: [("Content-Type", "application/json")], body: call)
            holder.send(Array(request[..<(request.count - 5)]))
            try await Task.sleep(for: .milliseconds(100))
            let other = try HTTPTestConnection(address)
            other.send(HTTPTestConnection.rpc(String(decoding: call, as: UTF8.self)))
            // The one place is not the holder's while its body is still coming.
            #expect(other.response()?.status == 200)
            // The holder never finishes its body: 408, and its connection is closed.
            let timedOut = try #require(holder.response(timeout: .seconds(4)))
            #expect(timedOut.status == 408)
            #expect(holder.closes(within: .seconds(2)))
            // (A new connection: `other` may have been idle past the idle timeout meanwhile.)
            let again = try HTTPTestConnection(address)
            again.send(HTTPTestConnection.rpc(String(decoding: call, as: UTF8.self)))
            #expect(again.response()?.status == 200)

            // Headers sent a byte at a time, never finished: the connection is closed.
            let slow = try HTTPTestConnection(address)
            slow.send(Array("POST /rpc HTTP/1.1\r\n".utf8))
            #expect(slow.closes(within: .seconds(4)))
            // An idle keep-alive connection is closed too.
            #expect(again.closes(within: .seconds(4)))
        }
    }

    @Test("the rate limit counts an IPv6 client by its /64 and an IPv4 one by its address, also written as IPv6")
    func rateLimitClients() {
        #expect(HTTPRateLimiter.client(of: "2001:db8:1:2:aaaa::1") == "2001:db8:1:2::/64")
        #expect(HTTPRateLimiter.client(of: "2001:0DB8:0001:0002:ffff:ffff:ffff:ffff") == "2001:db8:1:2::/64")
        #expect(HTTPRateLimiter.client(of: "2001:db8:1:3::1") == "2001:db8:1:3::/64")
        #expect(HTTPRateLimiter.client(of: "::1") == "0:0:0:0::/64")
        #expect(HTTPRateLimiter.client(of: "::ffff:10.1.2.3") == "10.1.2.3")
        #expect(HTTPRateLimiter.client(of: "10.1.2.3") == "10.1.2.3")
        #expect(HTTPRateLimiter.client(of: "not:an:address") == "not:an:address")
        #expect(HTTPRateLimiter.client(of: "") == "")
        // Two tokens a second: a host's other addresses in its /64 share them, the next /64 and IPv4 do not.
        let limiter = HTTPRateLimiter(rate: 2)
        let now: UInt64 = 1_000_000_000_000
        #expect(limiter.take("2001:db8:1:2::1", now: now) == nil)
        #expect(limiter.take("2001:db8:1:2::2", now: now) == nil)
        #expect(limiter.take("2001:db8:1:2:ffff::3", now: now) == 1)
        #expect(limiter.take("2001:db8:1:3::1", now: now) == nil)
        #expect(limiter.take("::ffff:10.1.2.3", now: now) == nil)
        #expect(limiter.take("10.1.2.3", now: now) == nil)
        #expect(limiter.take("10.1.2.3", now: now) == 1)
        #expect(limiter.take("2001:db8:1:2::9", now: now + 1_000_000_000) == nil, "refilled after a second")
    }

    @Test("a rate limit per client address answers 429 with Retry-After; --ops-address moves /metrics and /healthz; metrics count the HTTP path")
    func rateLimitOpsAndMetrics() async throws {
        try await Self.withLiveEdge(configure: {
            $0.rateLimit = 5
            $0.opsAddress = "127.0.0.1:0"
        }) { edge, _, _, _ in
            let address = edge.endpoints["http"]!
            let ops = try #require(edge.endpoints["ops"])
            let connection = try HTTPTestConnection(address)
            var statuses: [Int] = []
            for _ in 0..<12 {
                connection.send(HTTPTestConnection.rpc(#"{"jsonrpc":"2.0","id":1,"method":"edge.status"}"#))
                let response = try #require(connection.response())
                statuses.append(response.status)
                if response.status == 429 { #expect(Int(response.header("Retry-After") ?? "") ?? 0 >= 1) }
            }
            #expect(statuses.prefix(5).allSatisfy { $0 == 200 })
            #expect(statuses.contains(429))

            let public404 = try HTTPTestConnection(address)
            try await Task.sleep(for: .seconds(1.1))  // the bucket refills
            public404.send(HTTPTestConnection.request("GET", "/metrics"))
            #expect(public404.response()?.status == 404)
            let operations = try HTTPTestConnection(ops)
            operations.send(HTTPTestConnection.request("GET", "/healthz"))
            #expect(operations.response()?.status == 200)
            operations.send(HTTPTestConnection.request("GET", "/metrics"))
            let metrics = try #require(operations.response()).text
            #expect(metrics.contains(#"launchad_deliveryd_http_requests_total{route="rpc",method="POST",status="200",protocol="1.1"} 5"#))
            #expect(metrics.contains(#"launchad_deliveryd_http_requests_total{route="rpc",method="POST",status="429",protocol="1.1"}"#))
            #expect(metrics.contains(#"launchad_deliveryd_http_requests_total{route="ops",method="GET",status="404",protocol="1.1"} 1"#))
        }
    }
}
