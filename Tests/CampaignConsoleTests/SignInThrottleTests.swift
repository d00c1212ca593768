@testable import CampaignConsole
import Foundation
import LaunchAdTesting
import Testing

@Suite("The console's sign-in throttle", .timeLimit(.minutes(2)))
struct SignInThrottleTests {
    /// One request to the console from the loopback address `source` (127.0.0.2, say), over its own connection.
    static func request(_ console: String, from source: String, _ method: String, _ path: String, form: [(String, String)]? = nil,
                        bearer: String? = nil) async throws -> HTTPTestResponse? {
        var headers: [(String, String)] = []
        if let bearer { headers.append(("Authorization", "Bearer \(bearer)")) }
        var body: [UInt8]?
        if let form {
            headers.append(("Content-Type", "application/x-www-form-urlencoded"))
            body = Array(form.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)" }.joined(separator: "&").utf8)
        }
        let bytes = HTTPTestConnection.request(method, path, headers: headers, body: body)
        return try await onThread {
            let connection = try HTTPTestConnection(console, from: source)
            connection.send(bytes)
            return connection.response(timeout: .seconds(10))
        }
    }

    @Test("Wrong tokens from one address get 429 with Retry-After, the form and bearer alike; another address still signs in; everyone together is capped too; each failure is logged without its token")
    func flooding() async throws {
        // 3 failures an address, 5 in all, in 10 minutes: a throttled address waits 200 s, everyone 120 s (a little less
        // as the seconds of the test go by, and refill the buckets).
        try await withConsole(limits: SignInLimits(perAddress: 3, overall: 5, window: 600)) { service, client, _ in
            let console = service.endpoints["console"]!
            let wrong = "wrong-guess-0f1e2d3c4b5a69788796a5b4"
            for _ in 0..<3 {
                #expect(try await client.signIn(wrong, user: "alice").status == 401)
            }
            // The address used its allowance: even the right token waits, so that guessing cannot go on.
            let refused = try await client.signIn(aliceToken, user: "alice")
            #expect(refused.status == 429)
            #expect(refused.header("Retry-After").flatMap(Int.init).map { (150...200).contains($0) } == true, "\(refused.headers)")
            #expect(refused.body.contains("Too many failed sign-ins: try again in \(refused.header("Retry-After") ?? "?") s."))
            #expect(client.cookie == nil)
            client.bearer = aliceToken
            let bearer = try await client.get("/")
            #expect(bearer.status == 429)
            #expect(bearer.header("Retry-After").flatMap(Int.init).map { (150...200).contains($0) } == true)
            client.bearer = nil

            // Another address is not this one: the right token signs in, and a script's good bearer token costs nothing.
            let other = try #require(try await Self.request(console, from: "127.0.0.2", "POST", "/signin", form: [("user", "bob"), ("token", bobToken)]))
            #expect(other.status == 303)
            #expect(other.header("Set-Cookie")?.hasPrefix("launchad_console=") == true)
            for _ in 0..<6 {
                #expect(try await Self.request(console, from: "127.0.0.2", "GET", "/edges", bearer: bobToken)?.status == 200)
            }
            #expect(try await Self.request(console, from: "127.0.0.2", "GET", "/", bearer: wrong)?.status == 401)
            #expect(try await Self.request(console, from: "127.0.0.3", "POST", "/signin", form: [("user", "mallory"), ("token", wrong)])?.status == 401)

            // Five failures in all: every address now waits, a third one included.
            let all = try #require(try await Self.request(console, from: "127.0.0.4", "POST", "/signin", form: [("user", "bob"), ("token", bobToken)]))
            #expect(all.status == 429)
            #expect(all.header("Retry-After").flatMap(Int.init).map { (90...120).contains($0) } == true, "\(all.headers)")
            #expect(try await Self.request(console, from: "127.0.0.4", "GET", "/", bearer: bobToken)?.status == 429)

            let log = service.log
            let refusals = log.components(separatedBy: "\n").filter { $0.contains("console sign-in refused: wrong token") }
            #expect(refusals.count == 5, "\(log)")
            #expect(refusals.filter { $0.contains("client=127.0.0.1") && $0.contains("user=alice") && $0.contains("via=form") }.count == 3)
            #expect(refusals.contains { $0.contains("client=127.0.0.2") && $0.contains("user=-") && $0.contains("via=bearer") })
            #expect(refusals.contains { $0.contains("client=127.0.0.3") && $0.contains("user=mallory") })
            #expect(log.contains("console sign-ins throttled") && log.contains("client=all"))
            #expect(!log.contains(wrong) && !log.contains(aliceToken) && !log.contains(bobToken), "no token is ever logged")
        }
    }

    @Test("A user name that is not one is logged escaped and cut, so it cannot forge a log line")
    func hostileUserName() async throws {
        try await withConsole { service, client, _ in
            let name = "alice\nwarning campaignd: forged line \u{1B}[2J" + String(repeating: "x", count: 500)
            #expect(try await client.signIn("wrong-guess-0f1e2d3c4b5a69788796a5b4", user: name).status == 401)
            let line = try #require(service.log.components(separatedBy: "\n").first { $0.contains("console sign-in refused") })
            #expect(line.contains(#"user="alice\u{0A}warning campaignd: forged line \u{1B}[2J"#))
            #expect(line.contains("(not a user name)"))
            #expect(!service.log.contains("\u{1B}") && !line.contains(String(repeating: "x", count: 100)))
        }
    }

    @Test("An address's allowance comes back over the window, a right token gives back what it took, and the table forgets full buckets")
    func refill() {
        let clock = ManualClock()
        let throttle = SignInThrottle(limits: SignInLimits(perAddress: 2, overall: 1000, window: 10)) { clock.now }
        #expect(throttle.attempt("a") == .allowed)
        throttle.succeeded("a")  // a right token: as if nothing happened
        #expect(throttle.attempt("a") == .allowed)
        #expect(throttle.attempt("a") == .allowed)
        #expect(throttle.attempt("a") == .throttled(seconds: 5, address: true, first: true))
        #expect(throttle.attempt("a") == .throttled(seconds: 5, address: true, first: false))  // logged once
        clock.now += 3
        #expect(throttle.attempt("a") == .throttled(seconds: 2, address: true, first: false))
        clock.now += 2
        #expect(throttle.attempt("a") == .allowed)
        #expect(throttle.attempt("b") == .allowed)

        // Many addresses, each failing once, then a window later: past its limit, the table keeps only those still
        // below full.
        let wide = SignInThrottle(limits: SignInLimits(perAddress: 5, overall: 1000, window: 10), tableLimit: 100) { clock.now }
        for index in 0..<300 { #expect(wide.attempt("10.0.\(index >> 8).\(index & 255)") == .allowed) }
        #expect(wide.addressCount == 300)
        clock.now += 10
        for index in 0..<200 { _ = wide.attempt("10.1.\(index >> 8).\(index & 255)") }
        #expect(wide.addressCount == 200)
    }

    @Test("IPv6 clients are counted by their /64, IPv4-mapped ones by their IPv4 address")
    func addressKeys() {
        #expect(ClientAddress.key("192.0.2.7") == "192.0.2.7")
        #expect(ClientAddress.key("2001:db8:1:2:aaaa::1") == "2001:db8:1:2::/64")
        #expect(ClientAddress.key("2001:db8:1:2:bbbb:cccc:dddd:eeee") == "2001:db8:1:2::/64")
        #expect(ClientAddress.key("::ffff:192.0.2.7") == "192.0.2.7")
        #expect(ClientAddress.key(nil) == "unknown")
    }
}

/// A time a test moves by hand (one test uses it, on one thread).
final class ManualClock: @unchecked Sendable {
    var now: Double = 1000
}
