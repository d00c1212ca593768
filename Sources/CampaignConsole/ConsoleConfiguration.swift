/// How campaignd serves its console.
public struct ConsoleConfiguration: Sendable {
    /// `host:port` to serve on (port 0 picks a free one).
    public var address: String
    /// Who may sign in; `nil` serves the console to anyone who reaches it, which only a loopback address allows.
    public var users: ConsoleUsers?
    /// Whether the console is reached over TLS (a terminating proxy in front of it): session cookies are then `Secure`.
    public var secureCookies = false
    /// Seconds a sign-in lasts.
    public var sessionLifetime: Double = 12 * 3600
    /// Hours of stats the campaign page charts.
    public var statsHours = 48
    /// Failed sign-ins allowed per client address and from everyone (`--console-signin-limit`,
    /// `--console-signin-limit-all`), then 429 with `Retry-After`.
    public var signInLimits = SignInLimits()
    /// Changes on a page of a campaign's history (older ones on the next page).
    public var historyPage = 50
    /// The most bytes of campaigns' JSON (each change's campaign, and the one before it) read for a page of history:
    /// a page of large campaigns holds fewer changes.
    public var historyPageBytes = 2 << 20

    public init(address: String, users: ConsoleUsers? = nil) {
        self.address = address
        self.users = users
    }
}
