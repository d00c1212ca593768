import Hummingbird
import LaunchAdDomain
import LaunchAdRuntime
import Logging

/// Who is asking, for every page but the sign-in: a session cookie from the sign-in form, or for scripts an
/// `Authorization: Bearer TOKEN` header (checked against every user's token in constant time). With no users
/// configured (loopback only), everyone is `local`, still with a session so that write forms carry a CSRF token.
///
/// Every token checked, from the form or a bearer header, goes through ``check(name:token:address:via:)``: throttled
/// by ``SignInThrottle`` (429 with `Retry-After` once a client address, or everyone together, used up its allowance
/// of failures) and, when wrong, logged with the user name tried and the client's address, never the token.
struct ConsoleAccess: Sendable {
    static let cookieName = "launchad_console"

    /// A caller let in: by a session (`session` set; its write forms must carry its CSRF token) or by a bearer token.
    struct Principal: Sendable {
        var user: String
        var session: Session?
        /// A session opened for this request (no users configured), whose cookie the response must set.
        var opened: Bool
    }

    let users: ConsoleUsers?
    let sessions: SessionStore
    let secureCookies: Bool
    let throttle: SignInThrottle
    let logger: Logger

    /// Where a token came from, as the log says it.
    enum Via: String {
        case form, bearer
    }

    /// What a token checked comes to.
    enum Check: Equatable {
        case user(String)
        case wrong
        /// Too many failures from this address, or from everyone: try again in `seconds`.
        case throttled(seconds: Int)
    }

    /// Checks `token` (for the user `name`, when the form names one) from the client `address`: throttled, then
    /// compared, a failure logged.
    func check(name: String?, token: String, address: String, via: Via) -> Check {
        guard let users else { return .wrong }
        switch throttle.attempt(address) {
        case .throttled(let seconds, let perAddress, let first):
            if first {
                logger.warning("console sign-ins throttled", metadata: [
                    "client": "\(perAddress ? address : "all")", "retry_after": "\(seconds)", "via": "\(via.rawValue)",
                ])
            }
            return .throttled(seconds: seconds)
        case .allowed:
            break
        }
        guard let user = name.map({ users.user(name: $0, token: token) }) ?? users.user(token: token) else {
            logger.warning("console sign-in refused: wrong token", metadata: [
                "user": "\(name.map(Self.loggable) ?? "-")", "client": "\(address)", "via": "\(via.rawValue)",
            ])
            return .wrong
        }
        throttle.succeeded(address)
        return .user(user)
    }

    /// A user name as typed, fit for a log line: as it is when it is a user name's shape, else cut to 64 bytes with
    /// its control characters escaped (a newline would forge a line).
    static func loggable(_ name: String) -> String {
        if ConsoleUsers.isValidName(name) { return name }
        return "\"" + DisplayText.escaped(String(decoding: name.utf8.prefix(64), as: UTF8.self)) + "\" (not a user name)"
    }

    /// The refusal of a request whose bearer token is wrong, or that comes while its address (or everyone) is
    /// throttled; `nil` to let it on to its route, which then names the user (``principal(_:)``).
    func bearerRefusal(_ request: Request, address: String) -> Response? {
        guard users != nil, let token = Self.bearerToken(request) else { return nil }
        switch check(name: nil, token: token, address: address, via: .bearer) {
        case .user: return nil
        case .wrong: return unauthorized("the bearer token is not a console user's")
        case .throttled(let seconds): return Self.tooManyAttempts(seconds, page: nil)
        }
    }

    /// The token of a request's `Authorization` header: what follows `Bearer `, or nothing for another scheme (which
    /// no user's token matches); `nil` without the header.
    static func bearerToken(_ request: Request) -> String? {
        guard let authorization = request.headers[.authorization] else { return nil }
        let prefix = "Bearer "
        return authorization.hasPrefix(prefix) ? String(authorization.dropFirst(prefix.count)) : ""
    }

    /// 429 with `Retry-After`: on the sign-in page when it is given, else on a page of its own.
    static func tooManyAttempts(_ seconds: Int, page: ((String, HTTPResponse.Status) -> Response)?) -> Response {
        let message = "Too many failed sign-ins: try again in \(seconds) s."
        var response = page?(message, .tooManyRequests) ?? ConsoleResponses.problem(.tooManyRequests, message)
        response.headers[.retryAfter] = String(seconds)
        return response
    }

    /// The caller, or the response that refuses them: a browser is sent to the sign-in page, a bad bearer token gets 401.
    /// A bearer token was already throttled and checked by ``BearerGate``; here it only names its user.
    func principal(_ request: Request) -> Result<Principal, RefusedAccess> {
        if let token = Self.bearerToken(request), let users {
            guard let user = users.user(token: token) else {
                return .failure(RefusedAccess(response: unauthorized("the bearer token is not a console user's")))
            }
            return .success(Principal(user: user, session: nil, opened: false))
        }
        if let id = request.cookies[Self.cookieName]?.value, let session = sessions.session(id: id) {
            return .success(Principal(user: session.user, session: session, opened: false))
        }
        guard users != nil else {
            // Open to whoever is on this machine, so only to a loopback name: a page elsewhere whose name was made to
            // resolve to 127.0.0.1 (DNS rebinding) sends its own name as the Host.
            guard let host = request.head.authority, BindPolicy.isLoopbackAddress(host.contains(":") ? host : host + ":80") else {
                return .failure(RefusedAccess(response: ConsoleResponses.problem(.forbidden, "This console answers loopback names only (localhost, 127.0.0.1).")))
            }
            return .success(Principal(user: "local", session: sessions.open(user: "local"), opened: true))
        }
        if request.method == .get, !request.uri.path.hasPrefix("/events/"), !request.uri.path.hasPrefix("/creatives/") {
            return .failure(RefusedAccess(response: ConsoleResponses.seeOther("/signin")))
        }
        return .failure(RefusedAccess(response: unauthorized("sign in first")))
    }

    /// Whether a write form came from a page of this session: its `csrf` field equals the session's token (compared in
    /// constant time). Bearer callers carry no ambient credential a forged form could borrow, so they need none.
    /// A browser's `Origin`, when it sends one, must be the console's own (defence in depth: the SameSite=Strict cookie
    /// and the token already keep other sites' forms out).
    func formIsGenuine(_ form: FormBody, for principal: Principal, request: Request) -> Bool {
        guard let session = principal.session else { return true }
        guard Self.sameOrigin(request) else { return false }
        guard let token = form["csrf"] else { return false }
        return ConstantTime.equals(token, session.csrf)
    }

    /// Whether a browser's request came from a page of the console: no `Origin` (not a browser's cross-site request),
    /// or the console's own.
    static func sameOrigin(_ request: Request) -> Bool {
        guard let origin = request.headers[.origin] else { return true }
        guard let host = request.head.authority else { return false }
        return origin == "http://\(host)" || origin == "https://\(host)"
    }

    /// The cookie that carries `session`: HttpOnly (no script reads it), SameSite=Strict (no other site's page sends
    /// it), Secure when the console is reached over TLS.
    func cookie(_ session: Session) -> Cookie {
        Cookie(name: Self.cookieName, value: session.id, maxAge: Int(sessions.lifetime), path: "/", secure: secureCookies,
               httpOnly: true, sameSite: .strict)
    }

    func expiredCookie() -> Cookie {
        Cookie(name: Self.cookieName, value: "", maxAge: 0, path: "/", secure: secureCookies, httpOnly: true, sameSite: .strict)
    }

    private func unauthorized(_ reason: String) -> Response {
        var response = ConsoleResponses.problem(.unauthorized, "Not signed in: \(reason). Sign in at /signin, or send Authorization: Bearer TOKEN.")
        response.headers[.wwwAuthenticate] = "Bearer realm=\"launch-ad console\""
        return response
    }
}

/// A refusal, as the response that says so.
struct RefusedAccess: Error {
    let response: Response
}

/// The console's first middleware: a request with an `Authorization` header is throttled and its token checked
/// (``ConsoleAccess/bearerRefusal(_:address:)``) before a route that needs a caller runs, with the client's address
/// from the connection.
struct BearerGate: RouterMiddleware {
    typealias Context = ConsoleRequestContext
    let access: ConsoleAccess

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        // The sign-in page and the assets read no token (they hold no secret), so there is no guess to count there.
        let path = request.uri.path
        if path != "/signin", !path.hasPrefix("/assets/"), let refusal = access.bearerRefusal(request, address: context.clientAddress) {
            return refusal
        }
        return try await next(request, context)
    }
}
