import Hummingbird
import LaunchAdRuntime

/// Who is asking, for every page but the sign-in: a session cookie from the sign-in form, or for scripts an
/// `Authorization: Bearer TOKEN` header (checked against every user's token in constant time). With no users
/// configured (loopback only), everyone is `local`, still with a session so that write forms carry a CSRF token.
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

    /// The caller, or the response that refuses them: a browser is sent to the sign-in page, a bad bearer token gets 401.
    func principal(_ request: Request) -> Result<Principal, RefusedAccess> {
        if let authorization = request.headers[.authorization], users != nil {
            let prefix = "Bearer "
            guard authorization.hasPrefix(prefix), let user = users?.user(token: String(authorization.dropFirst(prefix.count))) else {
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
