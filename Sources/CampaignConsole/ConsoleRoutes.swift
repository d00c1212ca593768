import Foundation
import Hummingbird
import JSONRPC
import LaunchAdAPI
import LaunchAdDomain

/// The console's pages and writes, on a router. Every page but the sign-in and the assets asks ``ConsoleAccess``
/// first; every write checks the form's CSRF token, then runs the admin handler as the signed-in user.
struct ConsoleRoutes: Sendable {
    let gateway: AdminGateway
    let access: ConsoleAccess
    let tracker: SpreadTracker
    let configuration: ConsoleConfiguration
    let clock: @Sendable () -> Timestamp
    let stopping: StopSignal

    /// The largest form body read, in bytes.
    static let maxForm = 16 * 1024

    func register(on router: Router<ConsoleRequestContext>) {
        router.get("/assets/console.css") { _, _ in ConsoleResponses.asset(ConsoleAssets.css, contentType: "text/css; charset=utf-8") }
        router.get("/assets/console.js") { _, _ in ConsoleResponses.asset(ConsoleAssets.javascript, contentType: "text/javascript; charset=utf-8") }
        router.get("/signin") { _, _ in signInPage(message: nil, status: .ok) }
        router.post("/signin") { request, context in try await signIn(request, from: context.clientAddress) }
        router.post("/signout") { request, _ in
            await signedIn(request) { principal in
                guard let form = await form(request), access.formIsGenuine(form, for: principal, request: request) else { return forged(principal) }
                if let session = principal.session { access.sessions.close(id: session.id) }
                var response = ConsoleResponses.seeOther(access.users == nil ? "/" : "/signin")
                response.setCookie(access.expiredCookie())
                return response
            }
        }
        router.get("/") { request, _ in
            await signedIn(request) { principal in
                let campaigns = try await gateway.call(AdminAPI.campaignList, CampaignListParams(), actor: principal.user).campaigns
                // Like the funnels: without the apps the campaigns still show (each app as never set).
                let apps = (try? await gateway.call(AdminAPI.appList, NoParams(), actor: principal.user).apps) ?? []
                let now = clock()
                // Each app's funnel over the last hours, through the same admin method as adctl app stats.
                var funnels: [String: AppStatsResult] = [:]
                for app in Set(campaigns.map(\.app)) {
                    let params = AppStatsParams(app: app, from: now.adding(seconds: -Double(CampaignsPage.funnelHours) * 3600), to: now)
                    funnels[app] = try? await gateway.call(AdminAPI.appStats, params, actor: principal.user)
                }
                return ConsoleResponses.html(page(principal, "Campaigns", CampaignsPage.body(campaigns, apps: apps, funnels: funnels, now: now)))
            }
        }
        router.get("/campaigns/:id") { request, context in
            await signedIn(request) { principal in
                guard let id = campaignID(context) else { return badID(principal) }
                var before: Int64?
                if let text = request.uri.queryParameters.get("before") {
                    guard let seq = Int64(text), seq > 0 else {
                        return ConsoleResponses.problem(.badRequest, "before is a change's sequence number: a positive whole number.",
                                                        user: principal.user, csrf: principal.session?.csrf)
                    }
                    before = seq
                }
                switch PhonePreview.screens(query: { request.uri.queryParameters[Substring($0)].map(String.init) }) {
                case .failure(let refused):
                    return ConsoleResponses.problem(.badRequest, refused.message, user: principal.user, csrf: principal.session?.csrf)
                case .success(let screens):
                    return try await campaignPage(id, principal: principal, message: nil, status: .ok, screens: screens,
                                                  historyBefore: before)
                }
            }
        }
        router.get("/campaigns/:id/:operation") { request, context in
            await signedIn(request) { principal in
                guard let id = campaignID(context) else { return badID(principal) }
                guard let operation = context.parameters.get("operation").flatMap(ConsoleOperation.init(rawValue:)) else {
                    return badOperation(principal)
                }
                guard let campaign = try await campaign(id, principal) else { return notFound(id, principal) }
                return ConsoleResponses.html(page(principal, "\(operation.title) campaign \(id)",
                                                  CampaignPage.confirmation(campaign, operation, csrf: principal.session?.csrf)))
            }
        }
        router.post("/campaigns/:id/:operation") { request, context in
            await signedIn(request) { principal in
                try await write(request, context, principal)
            }
        }
        router.get("/creatives/:sha256") { request, context in
            await signedIn(request) { _ in
                guard let sha256 = context.parameters.get("sha256"), sha256.utf8.count == 64,
                      sha256.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }),
                      let (facts, bytes) = try await gateway.creative(sha256) else {
                    return ConsoleResponses.problem(.notFound, "No such creative.")
                }
                var headers = ConsoleResponses.headers(contentType: facts.contentType)
                headers[.cacheControl] = "private, max-age=86400, immutable"
                return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
            }
        }
        router.get("/edges") { request, _ in
            await signedIn(request) { principal in
                let rows = try await gateway.call(AdminAPI.edgeList, NoParams(), actor: principal.user)
                return ConsoleResponses.html(page(principal, "Edges", EdgesPage.body(rows, now: clock())))
            }
        }
        router.get("/events/edges") { request, _ in
            await signedIn(request) { principal in
                ServerSentEvents.response(interval: .milliseconds(250), stopping: stopping) {
                    EdgesPage.event(try await gateway.call(AdminAPI.edgeList, NoParams(), actor: principal.user), now: clock())
                }
            }
        }
        router.get("/changes/:seq") { request, context in
            await signedIn(request) { principal in
                guard let seq = context.parameters.get("seq").flatMap(Int64.init), let spread = tracker.spread(seq: seq) else {
                    return ConsoleResponses.problem(.notFound, "No change made from this console has that seq.", user: principal.user,
                                                    csrf: principal.session?.csrf)
                }
                let rows = try await gateway.call(AdminAPI.edgeList, NoParams(), actor: principal.user)
                return ConsoleResponses.html(page(principal, "Change \(seq) spreading to the edges", SpreadPage.body(spread, rows: rows)))
            }
        }
        router.get("/events/changes/:seq") { request, context in
            await signedIn(request) { principal in
                guard let seq = context.parameters.get("seq").flatMap(Int64.init), tracker.spread(seq: seq) != nil else {
                    return ConsoleResponses.problem(.notFound, "No change made from this console has that seq.")
                }
                return ServerSentEvents.response(interval: .milliseconds(100), stopping: stopping) {
                    let rows = try await gateway.call(AdminAPI.edgeList, NoParams(), actor: principal.user)
                    guard let spread = tracker.spread(seq: seq) else { return nil }
                    return SpreadPage.event(spread, rows: rows)
                }
            }
        }
    }

    // MARK: Pages

    func page(_ principal: ConsoleAccess.Principal, _ title: String, _ body: String, message: String? = nil) -> Page {
        Page(title: title, user: principal.user, csrf: principal.session?.csrf, body: body, message: message)
    }

    func campaign(_ id: Int64, _ principal: ConsoleAccess.Principal) async throws -> Campaign? {
        do {
            return try await gateway.call(AdminAPI.campaignGet, CampaignID(id: id), actor: principal.user).campaign
        } catch let error as JSONRPCError where error.code == APIError.campaignNotFound.code {
            return nil
        }
    }

    /// The campaign's page, previewed on `screens` (common iPhones when `nil`), its history from the change before
    /// `historyBefore` (from the last when `nil`).
    func campaignPage(_ id: Int64, principal: ConsoleAccess.Principal, message: String?, status: HTTPResponse.Status,
                      screens: PhonePreview.Screens? = nil, historyBefore: Int64? = nil) async throws -> Response {
        guard let campaign = try await campaign(id, principal) else { return notFound(id, principal) }
        let user = principal.user
        var variants: [CreativeFacts] = []
        for reference in campaign.creatives {
            if let facts = try await gateway.facts(reference.sha256) { variants.append(facts) }
        }
        var shapes: [PhonePreview.Shape] = []
        for shape in PhonePreview.shapes(variants) {
            let query = PhonePreview.query(for: campaign, width: shape.width, height: shape.height)
            let verdict: Result<LaunchExplainResult, any Error>
            do { verdict = .success(try await gateway.call(AdminAPI.launchExplain, query, actor: user)) } catch { verdict = .failure(error) }
            shapes.append(PhonePreview.Shape(width: shape.width, height: shape.height, variants: shape.variants, verdict: verdict,
                                             screens: screens ?? PhonePreview.defaultScreens))
        }
        let hours = configuration.statsHours
        let now = clock()
        let from = Timestamp(milliseconds: (now.milliseconds / 3_600_000 - Int64(hours) + 1) * 3_600_000)
        let stats: Result<[StatsPoint], any Error>
        var totals: CampaignStats?
        var pacing: PacingStats?
        do {
            let answer = try await gateway.call(AdminAPI.campaignStats, CampaignStatsParams(id: id, from: from, by: .hour), actor: user)
            stats = .success(answer.series ?? [])
            totals = answer.stats.first { $0.id == id }
            pacing = answer.pacing?.first { $0.id == id }
        } catch let error as JSONRPCError where error.code == APIError.campaignNotFound.code {
            stats = .success([])  // nothing reported yet
            totals = CampaignStats(id: id, impressions: 0, clicks: 0, skips: 0, reports: 0)
        } catch {
            stats = .failure(error)
        }
        // The market is the app's: a page that cannot ask for it still shows the campaign.
        let market = try? await gateway.call(AdminAPI.appGet, AppParams(app: campaign.app), actor: user).app.market
        let history: Result<[ChangeEntry], any Error>
        do { history = .success(try await gateway.history(id, historyBefore, configuration.historyPage)) } catch { history = .failure(error) }
        let content = CampaignPage.Content(campaign: campaign, shapes: shapes, history: history, historyBefore: historyBefore,
                                           stats: stats, statsFrom: from, statsHours: hours, market: market, totals: totals, pacing: pacing)
        return ConsoleResponses.html(page(principal, "Campaign \(id)", CampaignPage.body(content), message: message), status: status)
    }

    // MARK: Writes

    /// A write: the id and operation from the path, the form's CSRF token and confirmation, then the admin handler.
    /// Anything wrong is said on the page, and nothing is changed.
    func write(_ request: Request, _ context: ConsoleRequestContext, _ principal: ConsoleAccess.Principal) async throws -> Response {
        guard let id = campaignID(context) else { return badID(principal) }
        guard let operation = context.parameters.get("operation").flatMap(ConsoleOperation.init(rawValue:)) else { return badOperation(principal) }
        guard let form = await form(request) else {
            return ConsoleResponses.problem(.badRequest, "The form could not be read (URL-encoded, at most \(Self.maxForm) bytes): nothing was changed.",
                                            user: principal.user, csrf: principal.session?.csrf)
        }
        guard access.formIsGenuine(form, for: principal, request: request) else { return forged(principal) }
        guard form["confirm"] == "yes" else {
            return try await campaignPage(id, principal: principal, message: "\(operation.title) needs confirming (confirm=yes): nothing was changed.",
                                          status: .badRequest)
        }
        do {
            let answer = try await gateway.call(operation.method, CampaignID(id: id), actor: principal.user)
            tracker.begin(seq: answer.seq, campaign: id, operation: operation.rawValue, actor: principal.user, at: clock())
            return ConsoleResponses.seeOther("/changes/\(answer.seq)")
        } catch let error as JSONRPCError {
            if error.code == APIError.campaignNotFound.code { return notFound(id, principal) }
            return try await campaignPage(id, principal: principal, message: "\(operation.title) refused: \(error.message). Nothing was changed.",
                                          status: .conflict)
        }
    }

    func form(_ request: Request) async -> FormBody? {
        guard let buffer = try? await request.body.collect(upTo: Self.maxForm) else { return nil }
        return FormBody(String(buffer: buffer))
    }

    func forged(_ principal: ConsoleAccess.Principal) -> Response {
        ConsoleResponses.problem(.forbidden, "The form's security token is missing or is not this session's: nothing was changed. Reload the page and try again.",
                                 user: principal.user, csrf: principal.session?.csrf)
    }

    func campaignID(_ context: ConsoleRequestContext) -> Int64? {
        guard let text = context.parameters.get("id"), let id = Int64(text), id > 0 else { return nil }
        return id
    }

    func badID(_ principal: ConsoleAccess.Principal) -> Response {
        ConsoleResponses.problem(.badRequest, "A campaign id is a positive whole number.", user: principal.user, csrf: principal.session?.csrf)
    }

    func badOperation(_ principal: ConsoleAccess.Principal) -> Response {
        ConsoleResponses.problem(.badRequest, "The console's writes are \(ConsoleOperation.allCases.map(\.rawValue).joined(separator: ", ")).",
                                 user: principal.user, csrf: principal.session?.csrf)
    }

    func notFound(_ id: Int64, _ principal: ConsoleAccess.Principal) -> Response {
        ConsoleResponses.problem(.notFound, "There is no campaign \(id).", user: principal.user, csrf: principal.session?.csrf)
    }

    // MARK: Signing in

    /// Runs `body` for a caller let in, setting the cookie of a session opened for them; answers the refusal otherwise.
    func signedIn(_ request: Request, _ body: (ConsoleAccess.Principal) async throws -> Response) async -> Response {
        switch access.principal(request) {
        case .failure(let refused):
            return refused.response
        case .success(let principal):
            var response: Response
            do {
                response = try await body(principal)
            } catch {
                // campaignd itself could not answer (its database away, say): said on a page, not as a bare 500.
                response = ConsoleResponses.problem(.serviceUnavailable, "campaignd could not answer: \(error)", user: principal.user,
                                                    csrf: principal.session?.csrf)
            }
            if principal.opened, let session = principal.session { response.setCookie(access.cookie(session)) }
            return response
        }
    }

    func signInPage(message: String?, status: HTTPResponse.Status) -> Response {
        guard access.users != nil else { return ConsoleResponses.seeOther("/") }
        let body = """
            <form method="post" action="/signin" id="signin"><label>User <input type="text" name="user" autocomplete="username" \
            required autofocus></label> <label>Token <input type="password" name="token" autocomplete="current-password" \
            required></label> <button type="submit">Sign in</button></form>
            <p>Users and tokens are the console users file's (<code>--console-users</code>, one <code>name:token</code> a line).</p>
            """
        return ConsoleResponses.html(Page(title: "Sign in", body: body, message: message), status: status)
    }

    /// The sign-in form: the user's name and token, throttled and checked by ``ConsoleAccess/check(name:token:address:via:)``.
    func signIn(_ request: Request, from address: String) async throws -> Response {
        guard access.users != nil else { return ConsoleResponses.seeOther("/") }
        guard ConsoleAccess.sameOrigin(request) else {
            return signInPage(message: "A sign-in from another site's page is refused.", status: .forbidden)
        }
        guard let form = await form(request), let name = form["user"], !name.isEmpty, let token = form["token"], !token.isEmpty else {
            return signInPage(message: "Enter your user name and token.", status: .badRequest)
        }
        switch access.check(name: name, token: token, address: address, via: .form) {
        case .throttled(let seconds):
            return ConsoleAccess.tooManyAttempts(seconds) { message, status in signInPage(message: message, status: status) }
        case .wrong:
            return signInPage(message: "That user name and token are not a console user's.", status: .unauthorized)
        case .user(let user):
            var response = ConsoleResponses.seeOther("/")
            response.setCookie(access.cookie(access.sessions.open(user: user)))
            return response
        }
    }
}
