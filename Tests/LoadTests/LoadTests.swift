import Foundation
import JSONRPC
import LaunchAdAPI
import LaunchAdDomain
@testable import LaunchAdLoad
import Testing
import ZeroMQ

@Suite("adload's population, requests and reply reading", .timeLimit(.minutes(1)))
struct LoadTests {
    @Test("the same seed gives the same population; another seed another one; the mix follows its weights")
    func population() {
        let one = Population(devices: 10_000, apps: ["shop", "news"], seed: 7)
        let again = Population(devices: 10_000, apps: ["shop", "news"], seed: 7)
        let other = Population(devices: 10_000, apps: ["shop", "news"], seed: 8)
        #expect(one.devices == again.devices)
        #expect(one.devices != other.devices)
        #expect(one.devices.map(\.deviceId).prefix(3) == ["d-0", "d-1", "d-2"])
        let ios = one.devices.filter { $0.platform == "ios" }.count
        #expect((4_200...4_800).contains(ios), "45% iOS expected, got \(ios) of 10000")
        let shop = one.devices.filter { $0.app == "shop" }.count
        #expect((4_700...5_300).contains(shop))
        #expect(one.devices.allSatisfy { $0.platform == "ios" ? ["5.2.0", "5.1.3", "5.0.1", "4.9.8"].contains($0.appVersion) : $0.appVersion.hasPrefix("5.") || $0.appVersion.hasPrefix("4.") })
    }

    @Test("every request template is a valid JSON-RPC call whose params the edge's own types accept")
    func templates() throws {
        let population = Population(devices: 300, apps: ["shop", "app-1"], seed: 3)
        let templates = RequestTemplates(population: population)
        for (index, device) in population.devices.enumerated() {
            for (tail, method) in [(templates.coldQuery[index], "launch.query"), (templates.hotQuery[index], "launch.query"),
                                   (templates.prefetch[index], "launch.prefetch")] {
                let request = try JSONParser.parse(RequestTemplates.head + Array("\(index + 1)".utf8) + tail)
                #expect(request["jsonrpc"] == "2.0" && request["id"] == .number(JSONNumber(index + 1)) && request["method"] == .string(method))
                let params = try #require(request["params"])
                if method == "launch.query" {
                    let query = try JSONValueDecoder().decode(LaunchQueryParams.self, from: params)
                    _ = try query.validated()
                    #expect(query.deviceId == device.deviceId && query.app == device.app && query.screen?.width == device.width)
                } else {
                    let prefetch = try JSONValueDecoder().decode(LaunchPrefetchParams.self, from: params)
                    #expect(prefetch.app == device.app && prefetch.platform == device.platform)
                }
            }
            #expect(try JSONParser.parse(RequestTemplates.head + [UInt8(ascii: "1")] + templates.hotQuery[index])["params"]?["launchType"] == "hot")
        }
    }

    @Test("a report is written from its pieces: the launch's request, then the impression of its campaign or noAd; the bytes of the plain text, and params the edge's own types accept")
    func reportTemplate() throws {
        for (nonce, worker, event, campaign, device, app) in [(UInt64(0), 0, UInt64(1), UInt64(1), "d-0", "shop"),
                                                              (UInt64.max, 63, UInt64.max, UInt64(Int64.max), "d-9999999", String(repeating: "a", count: 64)),
                                                              (UInt64(123_456_789), 7, UInt64(10), UInt64(42), "", "news"),
                                                              (UInt64(5), 2, UInt64(77), UInt64(0), "d-3", "shop")] {
            let template = ReportTemplate(runNonce: nonce, worker: worker)
            let prefix = "adload-\(String(nonce, radix: 36))-\(worker)-\(event)"
            let request = #"{"eventId":"\#(prefix)r","type":"request","deviceId":"\#(device)","app":"\#(app)"}"#
            let outcome = campaign > 0
                ? #"{"eventId":"\#(prefix)","type":"impression","campaignId":\#(campaign),"deviceId":"\#(device)"}"#
                : #"{"eventId":"\#(prefix)","type":"noAd","deviceId":"\#(device)","app":"\#(app)"}"#
            let expected = Array(#","method":"launch.report","params":{"events":[\#(request),\#(outcome)]}}"#.utf8)
            let longest = template.longest(idBytes: max(device.utf8.count, app.utf8.count))
            let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: longest)
            defer { buffer.deallocate() }
            let length = Array(device.utf8).withUnsafeBytes { deviceId in
                Array(app.utf8).withUnsafeBytes { app in template.write(event: event, campaign: campaign, deviceId: deviceId, app: app, to: buffer) }
            }
            #expect(length <= longest)
            let written = Array(UnsafeBufferPointer(start: buffer, count: length))
            #expect(written == expected, "\(String(decoding: written, as: UTF8.self))")
            let parsed = try JSONParser.parse(RequestTemplates.head + Array("5".utf8) + written)
            let params = try JSONValueDecoder().decode(LaunchReportParams.self, from: try #require(parsed["params"]))
            #expect(params.events.map(\.deviceId) == [device, device])
            #expect(params.events.map(\.type) == [.request, campaign > 0 ? .impression : .noAd])
            #expect(params.events.map(\.campaignId) == [nil, campaign > 0 ? Int64(bitPattern: campaign) : nil])
            #expect(params.events.map(\.app) == [app, campaign > 0 ? nil : app])
        }
    }

    @Test("--mix is parsed strictly")
    func mix() throws {
        #expect(try RequestMix(parsing: "query=90,prefetch=5,report=5") == RequestMix(query: 90, prefetch: 5, report: 5))
        #expect(try RequestMix(parsing: "query=100") == RequestMix())
        #expect(throws: LoadConfigurationError.invalid("--mix", "shares add up to 95, not 100")) { try RequestMix(parsing: "query=90,report=5") }
        #expect(throws: LoadConfigurationError.self) { try RequestMix(parsing: "query=90,bogus=10") }
        #expect(throws: LoadConfigurationError.self) { try RequestMix(parsing: "query=50,query=50") }
        #expect(throws: LoadConfigurationError.self) { try RequestMix(parsing: "query") }
        #expect(throws: LoadConfigurationError.self) { try RequestMix(parsing: "report=100") }
    }

    @Test("configurations out of range are refused with the flag at fault")
    func validation() {
        var configuration = LoadConfiguration(endpoint: "tcp://127.0.0.1:7200")
        #expect(throws: Never.self) { try configuration.validate() }
        configuration.window = 0
        #expect(throws: LoadConfigurationError.invalid("--window", "must be 1...65536")) { try configuration.validate() }
        configuration = LoadConfiguration(endpoint: "127.0.0.1:7200")
        #expect(throws: LoadConfigurationError.self) { try configuration.validate() }
        configuration = LoadConfiguration(endpoint: "tcp://127.0.0.1:7200")
        configuration.threads = 8
        configuration.connections = 4
        #expect(throws: LoadConfigurationError.self) { try configuration.validate() }
        configuration = LoadConfiguration(endpoint: "tcp://127.0.0.1:7200")
        configuration.rate = -5
        #expect(throws: LoadConfigurationError.self) { try configuration.validate() }
        configuration.rate = nil
        configuration.apps = ["shop", ""]
        #expect(throws: LoadConfigurationError.self) { try configuration.validate() }
    }

    @Test("replies are read by their id and outcome, fast for our shape and strictly for any other")
    func replies() {
        func scan(_ text: String) -> ReplyScan { Array(text.utf8).withUnsafeBytes { ReplyScan.scan($0) } }
        #expect(scan(#"{"jsonrpc":"2.0","id":42,"result":{"hasAd":true,"id":7,"version":3}}"#) == ReplyScan(id: 42, outcome: .result(campaignId: 7)))
        #expect(scan(#"{"jsonrpc":"2.0","id":43,"result":{"hasAd":false,"epoch":"e","seq":1,"revoked":[]}}"#) == ReplyScan(id: 43, outcome: .result(campaignId: nil)))
        #expect(scan(#"{"jsonrpc":"2.0","id":44,"error":{"code":-32602,"message":"app: bad"}}"#) == ReplyScan(id: 44, outcome: .error(code: -32602)))
        // Another member order, spaces: the strict parser reads it.
        #expect(scan(#"{ "result": {"hasAd": true, "id": 9}, "id": 45, "jsonrpc": "2.0" }"#) == ReplyScan(id: 45, outcome: .result(campaignId: 9)))
        #expect(scan(#"{"jsonrpc":"2.0","id":"x","result":1}"#) == ReplyScan(id: nil, outcome: .result(campaignId: nil)))
        #expect(scan("not json").outcome == .invalid)
        #expect(scan(#"{"jsonrpc":"2.0","id":46}"#) == ReplyScan(id: 46, outcome: .invalid))
        #expect(scan(#"{"jsonrpc":"2.0","id":47,"result":1,"error":{"code":1,"message":"m"}}"#).outcome == .invalid)
        #expect(scan("").outcome == .invalid)
    }

    @Test("ids are written in decimal")
    func decimal() {
        let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: 24)
        defer { buffer.deallocate() }
        for value: UInt64 in [0, 7, 10, 99, 12_345, UInt64.max] {
            let count = writeDecimal(value, to: buffer)
            #expect(String(decoding: UnsafeBufferPointer(start: buffer, count: count), as: UTF8.self) == String(value))
        }
    }

    @Test("propagation percentiles are nearest-rank, in milliseconds")
    func percentiles() {
        let stats = DelayStatistics((1...100).map { Double($0) / 1000 })
        #expect(stats.samples == 100 && stats.p50Milliseconds == 50 && stats.p90Milliseconds == 90 && stats.p99Milliseconds == 99)
        #expect(stats.maxMilliseconds == 100 && stats.meanMilliseconds == 50.5)
        #expect(DelayStatistics([]).samples == 0)
        #expect(DelayStatistics([0.004]).p99Milliseconds == 4)
    }

    @Test("one ROUTER socket probes every edge: each call reaches the edge named by its index, each reply is handed back with it")
    func routerFleet() throws {
        // Connection names across the bytes of the index, and names that are not ours.
        for index in [0, 1, 255, 256, 70_000] {
            let name = RouterFleet.routingId(index)
            #expect(name.first != 0 && name.withUnsafeBytes { RouterFleet.index(of: $0, edges: 70_001) } == index)
        }
        #expect(RouterFleet.routingId(3).withUnsafeBytes { RouterFleet.index(of: $0, edges: 3) } == nil)
        #expect([UInt8]([0, 1, 2, 3, 4]).withUnsafeBytes { RouterFleet.index(of: $0, edges: 10) } == nil)

        // Three edges answering launch.query with their own number, and one call to each, in another order.
        let context = try ZMQContext()
        defer { context.shutdown() }
        let edges = try (0..<3).map { _ in try Socket(context, type: .router) }
        defer { for edge in edges { edge.close() } }
        let endpoints = try edges.map { try $0.bind("tcp://127.0.0.1:0") }
        let fleet = try RouterFleet(context, endpoints: endpoints)
        for index in [2, 0, 1] { try fleet.send(index, "launch.query", ["n": .number(JSONNumber(index))]) }
        for (number, edge) in edges.enumerated() {
            try edge.setReceiveTimeout(milliseconds: 5_000)
            let call = try #require(try edge.receiveParts())
            #expect(call.count == 2)
            let request = try JSONParser.parse(call[1])
            #expect(request["method"] == "launch.query" && request["params"]?["n"] == .number(JSONNumber(number)))
            let id = try #require(request["id"])
            // A reply to a call not pending is not taken; the one to the pending call is.
            for answered in [JSONValue.number(JSONNumber(99)), id] {
                var writer = JSONWriter()
                writer.writeObject { object in
                    object.field("jsonrpc", "2.0")
                    object.field("id", answered)
                    object.field("result", .number(JSONNumber(number * 10)))
                }
                #expect(try edge.send(parts: [call[0], writer.bytes]))
            }
        }
        // Polled after another item, as adload polls its admin socket first.
        var poller = Poller()
        poller.add(fd: -1, events: [])
        fleet.add(to: &poller)
        var results: [Int: JSONValue] = [:]
        let deadline = Date().addingTimeInterval(5)
        while results.count < 3, Date() < deadline {
            guard try poller.poll(timeoutMilliseconds: 100) > 0 else { continue }
            try fleet.receive(after: poller) { index, _, result in
                #expect(results[index] == nil, "edge \(index) answered twice")
                results[index] = result
            }
        }
        #expect(results == [0: .number(JSONNumber(0)), 1: .number(JSONNumber(10)), 2: .number(JSONNumber(20))])

        // A probed edge is one endpoint.
        #expect(throws: PropagationError.self) { try RouterFleet(context, endpoints: ["\(endpoints[0]),\(endpoints[1])"]) }
    }

    @Test("a fleet with several calls in flight: each reply taken once with its call's send time, the oldest given up beyond the limit, none after forget")
    func fleetInFlight() throws {
        let context = try ZMQContext()
        defer { context.shutdown() }
        let edge = try Socket(context, type: .router)
        defer { edge.close() }
        try edge.setReceiveTimeout(milliseconds: 5_000)
        let fleet = try RouterFleet(context, endpoints: [try edge.bind("tcp://127.0.0.1:0")], inFlight: 3)
        #expect(fleet.inFlight == 3 && fleet.pending(0) == 0)

        // Four calls: the first is given up when the fourth goes, three stay pending.
        var stamps: [Timestamp] = []
        for n in 0..<4 {
            stamps.append(Timestamp.now())
            try fleet.send(0, "launch.query", ["n": .number(JSONNumber(n))])
            usleep(2_000)
        }
        #expect(fleet.pending(0) == 3)
        var calls: [(name: [UInt8], id: JSONValue)] = []
        for n in 0..<4 {
            let call = try #require(try edge.receiveParts())
            let request = try JSONParser.parse(call[1])
            #expect(request["params"]?["n"] == .number(JSONNumber(n)))
            calls.append((call[0], try #require(request["id"])))
        }
        func answer(_ n: Int) throws {
            var writer = JSONWriter()
            writer.writeObject { object in
                object.field("jsonrpc", "2.0")
                object.field("id", calls[n].id)
                object.field("result", .number(JSONNumber(n * 10)))
            }
            #expect(try edge.send(parts: [calls[n].name, writer.bytes]))
        }
        var poller = Poller()
        fleet.add(to: &poller)
        func replies(_ count: Int) throws -> [(sentAt: Timestamp, result: JSONValue)] {
            var taken: [(sentAt: Timestamp, result: JSONValue)] = []
            let deadline = Date().addingTimeInterval(count == 0 ? 0.3 : 5)
            while Date() < deadline, count == 0 || taken.count < count {
                guard try poller.poll(timeoutMilliseconds: 50) > 0 else { continue }
                try fleet.receive(after: poller) { index, sentAt, result in
                    #expect(index == 0)
                    taken.append((sentAt, result))
                }
            }
            return taken
        }
        // Answered out of order, the given-up call among them: the three pending ones come back, each once, each
        // with when its call was sent (stamped between the test's own readings around the send).
        for n in [3, 0, 1, 2, 1] { try answer(n) }
        let taken = try replies(3)
        #expect(taken.map(\.result) == [.number(JSONNumber(30)), .number(JSONNumber(10)), .number(JSONNumber(20))])
        for (reply, n) in zip(taken, [3, 1, 2]) {
            #expect(reply.sentAt >= stamps[n] && (n == 3 || reply.sentAt <= stamps[n + 1]), "call \(n) sent at \(reply.sentAt)")
        }
        #expect(try replies(0).isEmpty && fleet.pending(0) == 0)

        // Forgotten calls: their replies are not taken.
        try fleet.send(0, "launch.query", ["n": 4])
        let call = try #require(try edge.receiveParts())
        calls.append((call[0], try #require(try JSONParser.parse(call[1])["id"])))
        fleet.forget()
        #expect(fleet.pending(0) == 0)
        try answer(4)
        #expect(try replies(0).isEmpty)
    }
}
