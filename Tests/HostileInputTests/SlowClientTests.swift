import Foundation
import LaunchAdAPI
import LaunchAdTesting
import Testing

/// Slow and idle HTTP clients against every HTTP address the programs open, with low timeouts given by their flags.
@Suite("Slow HTTP clients cost connections, not service", .timeLimit(.minutes(3)))
struct SlowClientTests {
    static let status = #"{"jsonrpc":"2.0","id":1,"method":"edge.status"}"#

    /// `count` calls of `POST /rpc` on one keep-alive connection: their latencies and the statuses that were not 200.
    static func calls(_ address: String, count: Int) -> (latencies: [Duration], refused: [Int]) {
        guard let connection = try? HTTPTestConnection(address) else { return ([], [0]) }
        var latencies: [Duration] = [], refused: [Int] = []
        for _ in 0..<count {
            let started = ContinuousClock.now
            connection.send(HTTPTestConnection.rpc(status))
            guard let response = connection.response(), response.status == 200 else {
                refused.append(connection.closedByPeer ? -1 : 0)
                continue
            }
            latencies.append(ContinuousClock.now - started)
            usleep(2_000)
        }
        return (latencies, refused)
    }

    static func p99(_ latencies: [Duration]) -> Duration {
        let sorted = latencies.sorted()
        return sorted.isEmpty ? .seconds(99) : sorted[min(sorted.count - 1, sorted.count * 99 / 100)]
    }

    @Test("more slow bodies than places: the good client gets no 503 and keeps its p99 within 2x its quiet one (150 ms at least); the slow bodies get 408")
    func slowBodies() async throws {
        try await withStopping(CampaignFixture()) { fixture in
            let places = 8, attackers = 40
            try await withStopping(fixture.startEdge("edge-slow-bodies", arguments: [
                "--http-max-in-flight", String(places), "--http-body-timeout", "4", "--ops-address", "127.0.0.1:0",
            ])) { edge in
                let address = try #require(edge.endpoints["http"])
                let ops = try #require(edge.endpoints["ops"])
                // Blocking clients run on threads of their own, not on the concurrency pool that other suites share.
                _ = try await onThread { Self.calls(address, count: 200) }  // warm up
                let quiet = try await onThread { Self.calls(address, count: 1_000) }

                // Each attacker sends a head announcing a body, then a byte of it every 300 ms: more bodies under way than places,
                // for as long as the good client's calls (about 2.5 s; the body timeout is 4 s). Both on threads of their own;
                // the good client starts once every head is in.
                let headsIn = DispatchSemaphore(value: 0)
                let attack = Task {
                    try await onThread { () -> (timedOut: Int, closed: Int) in
                        var slow: [HTTPTestConnection] = []
                        for _ in 0..<attackers {
                            let connection = try HTTPTestConnection(address)
                            connection.send(Array("POST /rpc HTTP/1.1\r\nHost: edge\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n".utf8))
                            slow.append(connection)
                        }
                        headsIn.signal()
                        for _ in 0..<12 {
                            for connection in slow { connection.send([UInt8(ascii: " ")]) }
                            usleep(300_000)
                        }
                        let timedOut = slow.filter { $0.response(timeout: .seconds(3))?.status == 408 }.count
                        return (timedOut, slow.filter { $0.closes(within: .seconds(2)) }.count)
                    }
                }
                let attacked = try await onThread {
                    headsIn.wait()
                    return Self.calls(address, count: 1_000)
                }
                let (timedOut, closed) = try await attack.value
                let page = try await MetricsPage.fetch(ops)

                let quietP99 = Self.p99(quiet.latencies), attackedP99 = Self.p99(attacked.latencies)
                print("slow bodies: \(attackers) slow bodies, \(places) places; good p99 quiet \(quietP99), under attack \(attackedP99) "
                      + "(\(attacked.latencies.count) calls); 408 to \(timedOut), closed \(closed)")
                #expect(quiet.refused.isEmpty && attacked.refused.isEmpty, "quiet refused \(quiet.refused), attacked refused \(attacked.refused)")
                #expect(attacked.latencies.count == 1_000)
                // A call held behind the slow bodies would wait for a place, that is for a body's 4 s timeout; the floor of
                // 150 ms keeps a loaded host's scheduling (a quiet p99 of 2 ms) from passing for that, far below it.
                #expect(attackedP99 <= max(quietP99 * 2, .milliseconds(150)), "p99 \(attackedP99) under attack, \(quietP99) quiet")
                #expect(timedOut == attackers)
                #expect(closed == attackers)
                #expect(page.value("launchad_deliveryd_http_connections_closed_total", labels: [#"address="public""#, #"reason="body_timeout""#]) == Double(attackers))
                #expect(page.value("launchad_deliveryd_http_requests_total", labels: [#"route="rpc""#, #"status="503""#]) == nil)
            }
        }
    }

    /// An HTTP address under test, and where its metrics are.
    struct Address: Sendable {
        var name: String
        var address: String
        var metrics: String
        var series: String
        var label: String
    }

    /// What happened to one address's slow, silent and idle connections.
    struct Outcome: Sendable {
        var slowHeadClosedAfter: Duration?
        var silentClosedAfter: Duration?
        var idleClosedAfter: Duration?
        var answered: Int?
    }

    /// Opens a connection that sends a head a byte every 100 ms, one that sends nothing, and one that makes a request
    /// and then sits idle; times when each is closed (up to `limit`).
    static func probe(_ address: String, limit: Duration) -> Outcome {
        var outcome = Outcome()
        guard let slow = try? HTTPTestConnection(address), let silent = try? HTTPTestConnection(address),
              let idle = try? HTTPTestConnection(address) else { return outcome }
        let started = ContinuousClock.now
        idle.send(HTTPTestConnection.request("GET", "/healthz"))
        outcome.answered = idle.response()?.status
        let answeredAt = ContinuousClock.now
        let head = Array("GET /healthz HTTP/1.1\r\nHost: edge\r\nX-Slow: ".utf8)
        var sent = 0
        while ContinuousClock.now - started < limit,
              outcome.slowHeadClosedAfter == nil || outcome.silentClosedAfter == nil || outcome.idleClosedAfter == nil {
            if outcome.slowHeadClosedAfter == nil {
                slow.send([sent < head.count ? head[sent] : UInt8(ascii: "a")])
                sent += 1
                if slow.closes(within: .milliseconds(100)) { outcome.slowHeadClosedAfter = ContinuousClock.now - started }
            } else {
                usleep(100_000)
            }
            if outcome.silentClosedAfter == nil, silent.closes(within: .milliseconds(1)) { outcome.silentClosedAfter = ContinuousClock.now - started }
            if outcome.idleClosedAfter == nil, idle.closes(within: .milliseconds(1)) { outcome.idleClosedAfter = ContinuousClock.now - answeredAt }
        }
        return outcome
    }

    @Test("every HTTP address closes a slow head and a silent connection after the header timeout, an idle keep-alive one after the idle timeout, and counts them")
    func headerAndIdleTimeouts() async throws {
        let timeouts = ["--http-header-timeout", "1", "--http-idle-timeout", "3"]
        try await withStopping(CampaignFixture(arguments: ["--console-address", "127.0.0.1:0"] + timeouts)) { fixture in
            try await withStopping(fixture.startRelay("relay-slow", arguments: timeouts)) { relay in
                try await withStopping(fixture.startEdge("edge-slow-heads", arguments: ["--ops-address", "127.0.0.1:0"] + timeouts)) { edge in
                    let campaign = try #require(fixture.endpoints["http"]), console = try #require(fixture.endpoints["console"])
                    let relayHTTP = try #require(relay.endpoints["http"])
                    let edgeHTTP = try #require(edge.endpoints["http"]), ops = try #require(edge.endpoints["ops"])
                    let addresses = [
                        Address(name: "campaignd http", address: campaign, metrics: campaign, series: "launchad_campaignd_http_connections_closed_total", label: "http"),
                        Address(name: "console", address: console, metrics: campaign, series: "launchad_campaignd_http_connections_closed_total", label: "console"),
                        Address(name: "relayd http", address: relayHTTP, metrics: relayHTTP, series: "launchad_relayd_http_connections_closed_total", label: "http"),
                        Address(name: "deliveryd public", address: edgeHTTP, metrics: ops, series: "launchad_deliveryd_http_connections_closed_total", label: "public"),
                        Address(name: "deliveryd ops", address: ops, metrics: ops, series: "launchad_deliveryd_http_connections_closed_total", label: "ops"),
                    ]
                    let outcomes = try await withThrowingTaskGroup(of: (String, Outcome).self) { group in
                        for address in addresses {
                            group.addTask { try await onThread { (address.name, Self.probe(address.address, limit: .seconds(6))) } }
                        }
                        var outcomes: [String: Outcome] = [:]
                        for try await (name, outcome) in group { outcomes[name] = outcome }
                        return outcomes
                    }
                    for address in addresses {
                        let outcome = try #require(outcomes[address.name])
                        print("\(address.name): answered \(outcome.answered ?? 0), slow head closed after \(outcome.slowHeadClosedAfter.map { "\($0)" } ?? "-"), "
                              + "silent after \(outcome.silentClosedAfter.map { "\($0)" } ?? "-"), idle after \(outcome.idleClosedAfter.map { "\($0)" } ?? "-")")
                        #expect(outcome.answered != nil, "\(address.name) answered nothing")
                        let slow = try #require(outcome.slowHeadClosedAfter, "\(address.name) kept a slow head")
                        #expect(slow >= .milliseconds(900) && slow < .milliseconds(2_500), "\(address.name): slow head closed after \(slow)")
                        let silent = try #require(outcome.silentClosedAfter, "\(address.name) kept a silent connection")
                        #expect(silent >= .milliseconds(900) && silent < .milliseconds(2_500), "\(address.name): silent connection closed after \(silent)")
                        let idle = try #require(outcome.idleClosedAfter, "\(address.name) kept an idle connection")
                        #expect(idle >= .milliseconds(2_900) && idle < .milliseconds(4_500), "\(address.name): idle connection closed after \(idle)")
                        let page = try await MetricsPage.fetch(address.metrics)
                        let label = #"address="\#(address.label)""#
                        #expect(page.value(address.series, labels: [label, #"reason="header_timeout""#]) ?? 0 >= 2, "\(address.name): header timeouts counted")
                        #expect(page.value(address.series, labels: [label, #"reason="idle_timeout""#]) ?? 0 >= 1, "\(address.name): idle timeouts counted")
                    }
                }
            }
        }
    }

    @Test("past --http-max-connections new connections are closed at once and counted; once some go, new ones are served")
    func connectionBound() async throws {
        try await withStopping(CampaignFixture()) { fixture in
            let bound = 20
            try await withStopping(fixture.startEdge("edge-connection-bound", arguments: [
                "--http-max-connections", String(bound), "--ops-address", "127.0.0.1:0",
            ])) { edge in
                let address = try #require(edge.endpoints["http"])
                let ops = try #require(edge.endpoints["ops"])
                var held: [HTTPTestConnection] = []
                for _ in 0..<bound {
                    let connection = try HTTPTestConnection(address)
                    connection.send(HTTPTestConnection.rpc(Self.status))
                    #expect(connection.response()?.status == 200)
                    held.append(connection)
                }
                var refused = 0
                for _ in 0..<10 {
                    let connection = try HTTPTestConnection(address)
                    connection.send(HTTPTestConnection.rpc(Self.status))
                    if connection.response(timeout: .seconds(1)) == nil && connection.closes(within: .seconds(1)) { refused += 1 }
                }
                let full = try await MetricsPage.fetch(ops)
                // Half of them go; new connections are served again.
                held.removeFirst(bound / 2)
                try await Task.sleep(for: .milliseconds(200))
                var served = 0
                for _ in 0..<(bound / 2) {
                    let connection = try HTTPTestConnection(address)
                    connection.send(HTTPTestConnection.rpc(Self.status))
                    if connection.response()?.status == 200 { served += 1 }
                    held.append(connection)
                }
                print("connection bound \(bound): \(refused) of 10 past it closed at once; \(served) of \(bound / 2) served once half went")
                #expect(refused == 10)
                #expect(served == bound / 2)
                #expect(full.value("launchad_deliveryd_http_connections_closed_total", labels: [#"address="public""#, #"reason="connection_limit""#]) == 10)
                #expect(full.value("launchad_deliveryd_http_connections_open", labels: [#"address="public""#]) == Double(bound))
                for connection in held { #expect(!connection.closedByPeer) }
            }
        }
    }
}
