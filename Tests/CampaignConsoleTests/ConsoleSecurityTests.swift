import CampaignConsole
import CampaignService
import Foundation
import JSONRPC
import LaunchAdAPI
import LaunchAdDomain
import LaunchAdRuntime
import LaunchAdTesting
import Testing

@Suite("The console's security: sign-in, tokens, CSRF, escaping", .timeLimit(.minutes(3)))
struct ConsoleSecurityTests {
    @Test("Pages refuse a caller with no session or a wrong token, and a write without one changes nothing")
    func refusesStrangers() async throws {
        try await withConsole { service, client, admin in
            let id = try await createCampaign(service, admin)
            for path in ["/", "/edges", "/campaigns/\(id)", "/campaigns/\(id)/expire"] {
                let response = try await client.get(path)
                #expect(response.status == 303, "\(path)")
                #expect(response.header("Location") == "/signin", "\(path)")
                #expect(!response.body.contains("Autumn sale"))
            }
            #expect(try await client.get("/events/edges").status == 401)
            let write = try await client.post("/campaigns/\(id)/expire", [("confirm", "yes")])
            #expect(write.status == 401)
            client.bearer = String(aliceToken.dropLast()) + "X"
            let wrong = try await client.get("/")
            #expect(wrong.status == 401)
            #expect(wrong.header("WWW-Authenticate")?.hasPrefix("Bearer") == true)
            #expect(try await client.post("/campaigns/\(id)/expire", [("confirm", "yes")]).status == 401)
            #expect(try await admin.call(AdminAPI.campaignGet, CampaignID(id: id)).campaign.state == .live)
            #expect(try await client.get("/assets/console.js").status == 200)  // assets hold no secret
        }
    }

    @Test("Signing in sets an HttpOnly, SameSite=Strict session cookie; a wrong or empty token is told on the page")
    func signIn() async throws {
        try await withConsole { _, client, _ in
            let page = try await client.get("/signin")
            #expect(page.status == 200)
            #expect(page.body.contains("name=\"user\"") && page.body.contains("name=\"token\""))
            let wrong = try await client.signIn("not-a-token-of-anyone")
            #expect(wrong.status == 401)
            #expect(wrong.body.contains("That user name and token are not a console user&#39;s."))
            #expect(client.cookie == nil)
            #expect(try await client.signIn(bobToken, user: "alice").status == 401)  // bob's token is not alice's
            #expect(client.cookie == nil)
            let empty = try await client.post("/signin", [("user", "alice"), ("token", "")])
            #expect(empty.status == 400)
            #expect(empty.body.contains("Enter your user name and token."))
            #expect(try await client.post("/signin", [("token", aliceToken)]).status == 400)  // no user name

            client.extraHeaders["Origin"] = "https://attacker.example"
            #expect(try await client.signIn(bobToken).status == 403)  // a sign-in forged by another site
            #expect(client.cookie == nil)
            client.extraHeaders = [:]
            let signedIn = try await client.signIn(bobToken)
            #expect(signedIn.status == 303)
            let setCookie = try #require(signedIn.header("Set-Cookie"))
            #expect(setCookie.contains("HttpOnly"))
            #expect(setCookie.contains("SameSite=Strict"))
            #expect(!setCookie.contains("Secure"))  // no TLS here
            let home = try await client.get("/")
            #expect(home.status == 200)
            #expect(home.body.contains("signed in as bob"))
            #expect(home.header("Content-Security-Policy")?.contains("script-src 'self'") == true)

            let csrf = try #require(ConsoleClient.csrf(in: home.body))
            #expect(try await client.post("/signout", [("csrf", csrf)]).status == 303)
            #expect(try await client.get("/").status == 303)  // the old cookie no longer signs in
        }
    }

    @Test("A forged or missing CSRF token is refused and changes nothing")
    func forgedCSRF() async throws {
        try await withConsole { service, client, admin in
            let id = try await createCampaign(service, admin)
            try await client.signIn(aliceToken)
            let confirm = try await client.get("/campaigns/\(id)/expire")
            #expect(confirm.status == 200)
            let csrf = try #require(ConsoleClient.csrf(in: confirm.body))
            #expect(csrf.count == 64)

            let forged = try await client.post("/campaigns/\(id)/expire", [("csrf", String(csrf.reversed())), ("confirm", "yes")])
            #expect(forged.status == 403)
            #expect(forged.body.contains("security token is missing or is not this session"))
            let missing = try await client.post("/campaigns/\(id)/expire", [("confirm", "yes")])
            #expect(missing.status == 403)
            // The right token from another site's page (its Origin) is refused too.
            client.extraHeaders["Origin"] = "https://attacker.example"
            #expect(try await client.post("/campaigns/\(id)/expire", [("csrf", csrf), ("confirm", "yes")]).status == 403)
            client.extraHeaders = [:]
            // Another session's token is not this one's.
            let other = ConsoleClient(service.endpoints["console"]!)
            try await other.signIn(bobToken)
            let otherCSRF = try #require(ConsoleClient.csrf(in: try await other.get("/").body))
            #expect(try await client.post("/campaigns/\(id)/expire", [("csrf", otherCSRF), ("confirm", "yes")]).status == 403)

            #expect(try await admin.call(AdminAPI.campaignGet, CampaignID(id: id)).campaign.state == .live)
            let log = try await admin.call(AdminAPI.changeList, ChangeListParams(id: id))
            #expect(log.changes.map(\.op) == [.created])
        }
    }

    @Test("A script in a campaign's name or jump URL is shown as text, never run")
    func escapesEverything() async throws {
        try await withConsole { service, client, admin in
            let name = "<script>alert(\"owned\")</script> & 'co'"
            let id = try await createCampaign(service, admin, name: name) {
                $0.jump = Jump(type: .url, value: "https://shop.example/?q=<img/src=x/onerror=alert(1)>")
            }
            try await client.signIn(aliceToken)
            for path in ["/", "/campaigns/\(id)", "/campaigns/\(id)/pause"] {
                let page = try await client.get(path)
                #expect(page.status == 200, "\(path)")
                #expect(page.body.components(separatedBy: "<script").count == 2, "\(path): only the console's own script tag")
                #expect(!page.body.contains("<img"), "\(path)")
                #expect(page.body.contains("&lt;script&gt;alert(&quot;owned&quot;)&lt;/script&gt; &amp; &#39;co&#39;"), "\(path)")
            }
        }
    }

    @Test("With no users the console is open on loopback only, and its writes still need the page's CSRF token")
    func openOnLoopback() async throws {
        try await withConsole(users: false) { service, client, admin in
            let id = try await createCampaign(service, admin)
            let home = try await client.get("/")
            #expect(home.status == 200)
            #expect(home.body.contains("signed in as local"))
            let setCookie = try #require(home.header("Set-Cookie"))
            client.cookie = String(setCookie.split(separator: ";")[0])
            #expect(try await client.post("/campaigns/\(id)/pause", [("confirm", "yes")]).status == 403)
            let csrf = try #require(ConsoleClient.csrf(in: try await client.get("/campaigns/\(id)/pause").body))
            let paused = try await client.post("/campaigns/\(id)/pause", [("csrf", csrf), ("confirm", "yes")])
            #expect(paused.status == 303)
            #expect(try await admin.call(AdminAPI.campaignGet, CampaignID(id: id)).campaign.state == .paused)
            #expect(try await admin.call(AdminAPI.changeList, ChangeListParams(id: id)).changes.last?.actor == "local")
            // A page whose name was made to resolve to 127.0.0.1 (DNS rebinding) sends its own name: refused.
            let address = service.endpoints["console"]!
            let rebound = try await onThread { () -> Int in
                let connection = try HTTPTestConnection(address)
                connection.send(Array("GET / HTTP/1.1\r\nHost: attacker.example\r\n\r\n".utf8))
                return connection.response(timeout: .seconds(10))?.status ?? 0
            }
            #expect(rebound == 403)
        }
        await #expect(throws: RuntimeError.self) {
            try await withCampaignService(configure: { $0.console = ConsoleConfiguration(address: "0.0.0.0:0") }) { _ in }
        }
    }

    @Test("A users file is checked line by line, with a clear error; tokens are matched whole")
    func usersFile() throws {
        let users = try ConsoleUsers(text: "# operators\nalice:\(aliceToken)\n\nbob:\(bobToken)\r\n", source: "users")
        #expect(users.names == ["alice", "bob"])
        #expect(users.user(token: aliceToken) == "alice")
        #expect(users.user(token: bobToken) == "bob")
        #expect(users.user(token: String(aliceToken.dropLast())) == nil)
        #expect(users.user(token: aliceToken + "x") == nil)
        #expect(users.user(token: "") == nil)
        let bad: [(String, String)] = [
            ("alice \(aliceToken)", "users line 1: expected name:token"),
            ("alice:short", "users line 1: the token of alice must be 32 to 512 visible ASCII characters, without spaces"),
            ("alice:alice-token-0123456789abcdef", "users line 1: the token of alice must be 32 to 512 visible ASCII characters, without spaces"),
            ("bob:\(bobToken)\nalice:" + String(repeating: "a", count: 40),
             "users line 2: the token of alice is too easy to guess: it uses 1 different character, fewer than 8 (make one with openssl rand -hex 24)"),
            ("alice:" + String(repeating: "s3cr3t!Xy", count: 5),
             "users line 1: the token of alice is too easy to guess: it repeats a pattern of 9 characters (make one with openssl rand -hex 24)"),
            ("alice:" + String(repeating: "0123456789abcdef", count: 2) + "0123",
             "users line 1: the token of alice is too easy to guess: it repeats a pattern of 16 characters (make one with openssl rand -hex 24)"),
            ("alice:abcdefghijklmnopqrstuvwxyzABCDEFGH",
             "users line 1: the token of alice is too easy to guess: 32 of its 33 steps go to the next or previous character (make one with openssl rand -hex 24)"),
            ("al ice:\(aliceToken)", "users line 1: the name must be 1 to 64 letters, digits, '.', '_' or '-'"),
            ("alice:\(aliceToken)\nalice:\(bobToken)", "users line 2: alice is listed twice"),
            ("alice:\(aliceToken)\n\nbob:\(aliceToken)", "users line 3: the token of bob is alice's too: give each user a token of their own"),
            ("# nobody\n", "users lists no user (expected name:token lines)"),
        ]
        for (text, message) in bad {
            #expect(throws: ConsoleUsersError.self) { try ConsoleUsers(text: text, source: "users") }
            do { _ = try ConsoleUsers(text: text, source: "users") } catch { #expect(error.description == message) }
        }
        #expect(throws: ConsoleUsersError.self) { try ConsoleUsers(contentsOf: "/nonexistent/users") }
    }
}
