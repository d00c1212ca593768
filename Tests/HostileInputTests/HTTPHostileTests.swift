import Foundation
import LaunchAdAPI
import LaunchAdTesting
import SeededRandomness
import Synchronization
import Testing

/// Tells a task to stop.
final class StopFlag: Sendable {
    let value = Atomic<Bool>(false)
}

@Suite("deliveryd's HTTP address under hostile clients", .timeLimit(.minutes(3)))
struct HTTPHostileTests {
    static let query = #"{"jsonrpc":"2.0","id":1,"method":"launch.query","params":{"app":"shop","platform":"ios","appVersion":"5.2.0","deviceId":"d-1"}}"#

    @Test("garbage bodies, huge headers and bodies, slowloris, many connections, wrong methods and types: a clear status each, bounded memory, a good client's p99 low")
    func hostileHTTP() async throws {
        try await withStopping(CampaignFixture()) { fixture in
            let admin = try fixture.admin()
            let sha = try await fixture.uploadPNG(admin)
            let created = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(creative: sha))
            await admin.close()
            try await withStopping(fixture.startEdge("edge-http-hostile", arguments: ["--http-idle-timeout", "2"])) { edge in
                #expect(await edge.waitFor(seq: created.seq, creatives: 1))
                let address = try #require(edge.endpoints["http"])
                let pid = edge.process.pid

                // Warm up, so the baseline holds what serving normally allocates.
                let warm = try HTTPTestConnection(address)
                for _ in 0..<300 {
                    warm.send(HTTPTestConnection.rpc(Self.query))
                    _ = warm.response()
                }
                let before = try #require(residentBytes(pid))

                // The good client: one keep-alive connection, a call every millisecond or so, timed. On a thread of its own, so
                // that suites blocking the concurrency pool's threads do not hold it past the idle timeout.
                let stop = StopFlag()
                let good = Task { try await onThread { () -> (latencies: [Duration], wrong: Int) in
                    var latencies: [Duration] = [], wrong = 0
                    guard let connection = try? HTTPTestConnection(address) else { return ([], 1) }
                    while !stop.value.load(ordering: .relaxed) {
                        let started = ContinuousClock.now
                        connection.send(HTTPTestConnection.rpc(Self.query))
                        guard let response = connection.response(), response.status == 200, response.text.contains(#""hasAd":true"#) else {
                            wrong += 1
                            continue
                        }
                        latencies.append(ContinuousClock.now - started)
                        usleep(1_000)
                    }
                    return (latencies, wrong)
                } }

                var random = SeededRandom(seed: 36)
                var statuses: [String: Set<Int>] = [:]
                func record(_ kind: String, _ response: HTTPTestResponse?) { statuses[kind, default: []].insert(response?.status ?? 0) }

                // Garbage bodies: answered 200 with a JSON-RPC parse error (or invalid request), as the client socket does.
                let garbage = try HTTPTestConnection(address)
                for _ in 0..<300 {
                    let body = (0..<Int.random(in: 1...2_000, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
                    garbage.send(HTTPTestConnection.request("POST", "/rpc", headers: [("Content-Type", "application/json")], body: body))
                    record("garbage body", garbage.response())
                }
                // Wrong methods and types, and unknown paths.
                for method in ["GET", "PUT", "DELETE", "OPTIONS", "PATCH"] {
                    let connection = try HTTPTestConnection(address)
                    connection.send(HTTPTestConnection.request(method, "/rpc", body: Array(Self.query.utf8)))
                    record("method \(method)", connection.response())
                }
                for type in ["text/plain", "application/xml", "multipart/form-data", "application/jsonx"] {
                    let connection = try HTTPTestConnection(address)
                    connection.send(HTTPTestConnection.rpc(Self.query, contentType: type))
                    record("type", connection.response())
                }
                // Huge bodies, announced and not, and huge headers; a malformed request line.
                for _ in 0..<20 {
                    let announced = try HTTPTestConnection(address)
                    announced.send(Array("POST /rpc HTTP/1.1\r\nHost: e\r\nContent-Type: application/json\r\nContent-Length: 100000000\r\n\r\n".utf8))
                    record("huge announced body", announced.response())
                    let sent = try HTTPTestConnection(address)
                    sent.send(HTTPTestConnection.rpc(String(repeating: "[", count: 200_000)))
                    record("huge body", sent.response())
                    let headers = try HTTPTestConnection(address)
                    headers.send(HTTPTestConnection.request("POST", "/rpc", headers: [("Content-Type", "application/json"), ("X-Big", String(repeating: "h", count: 200_000))],
                                                            body: Array(Self.query.utf8)))
                    record("huge headers", headers.response())
                    let malformed = try HTTPTestConnection(address)
                    malformed.send(Array("NOT A REQUEST\r\n\r\n".utf8))
                    record("malformed", malformed.response())
                }
                var peak = residentBytes(pid) ?? 0

                // Slowloris (headers a few bytes at a time, never ended) and many idle connections: all closed by the idle timeout.
                var slow: [HTTPTestConnection] = []
                for _ in 0..<100 { if let connection = try? HTTPTestConnection(address) { slow.append(connection) } }
                var idle: [HTTPTestConnection] = []
                for _ in 0..<400 { if let connection = try? HTTPTestConnection(address) { idle.append(connection) } }
                for round in 0..<10 {
                    for connection in slow { connection.send(Array("POST /rpc HTTP/1.1\r\nX-\(round): a\r\n".utf8)) }
                    try await Task.sleep(for: .milliseconds(100))
                    peak = max(peak, residentBytes(pid) ?? 0)
                }
                try await Task.sleep(for: .seconds(4))
                let closedSlow = slow.filter { $0.closes(within: .milliseconds(100)) }.count
                let closedIdle = idle.filter { $0.closes(within: .milliseconds(10)) }.count

                stop.value.store(true, ordering: .relaxed)
                let (latencies, wrong) = try await good.value
                let sorted = latencies.sorted()
                #expect(edge.process.isRunning)
                #expect(wrong == 0, "\(wrong) wrong answers to the good client")
                #expect(sorted.count > 100, "only \(sorted.count) good calls")
                let p99 = sorted.isEmpty ? .seconds(99) : sorted[min(sorted.count - 1, sorted.count * 99 / 100)]
                #expect(p99 < Sanitizer.scaled(.milliseconds(250)), "p99 \(p99)")

                #expect(statuses["garbage body"] == [200])
                for method in ["GET", "PUT", "DELETE", "OPTIONS", "PATCH"] { #expect(statuses["method \(method)"] == [405], "\(method)") }
                #expect(statuses["type"] == [415])
                #expect(statuses["huge announced body"] == [413])
                #expect(statuses["huge body"] == [413])
                #expect(statuses["huge headers"] == [431])
                #expect(statuses["malformed"] == [400])
                #expect(closedSlow == slow.count, "\(closedSlow) of \(slow.count) slowloris connections closed")
                #expect(closedIdle == idle.count, "\(closedIdle) of \(idle.count) idle connections closed")
                let limit = 96 << 20
                #expect(peak - before < limit, "RSS grew from \(before >> 20) MiB to a peak of \(peak >> 20) MiB")
                print("HTTP hostile clients: good calls \(sorted.count), p50 \(sorted.isEmpty ? .zero : sorted[sorted.count / 2]), p99 \(p99); "
                      + "statuses \(statuses); RSS \(before >> 20) -> peak \(peak >> 20) MiB")
            }
        }
    }
}
