import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A response from the console, with its redirect left unfollowed.
struct ConsoleResponse {
    var status: Int
    var headers: [String: String]
    var body: String

    func header(_ name: String) -> String? {
        headers.first { $0.key.lowercased() == name.lowercased() }?.value
    }
}

/// An HTTP client for the console that keeps a session cookie by hand and never follows a redirect, so a test sees
/// the 303 the console answers. Asynchronous (URLSession), so it never blocks a thread the server needs.
final class ConsoleClient: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
    // @unchecked: used by the one test that made it.
    let base: String
    var cookie: String?
    var bearer: String?
    /// Headers sent with every request (an `Origin`, say).
    var extraHeaders: [String: String] = [:]
    private var session: URLSession!

    init(_ address: String) {
        base = "http://\(address)"
        super.init()
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpShouldSetCookies = false
        configuration.timeoutIntervalForRequest = 20
        session = URLSession(configuration: configuration, delegate: self, delegateQueue: nil)
    }

    deinit { session.invalidateAndCancel() }

    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void) {
        completionHandler(nil)
    }

    func get(_ path: String) async throws -> ConsoleResponse {
        try await send(URLRequest(url: URL(string: base + path)!))
    }

    /// POSTs `fields` URL-encoded.
    func post(_ path: String, _ fields: [(String, String)]) async throws -> ConsoleResponse {
        var request = URLRequest(url: URL(string: base + path)!)
        request.httpMethod = "POST"
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        request.httpBody = Data(fields.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: allowed)!)" }.joined(separator: "&").utf8)
        return try await send(request)
    }

    private func send(_ request: URLRequest) async throws -> ConsoleResponse {
        var request = request
        if let cookie { request.setValue(cookie, forHTTPHeaderField: "Cookie") }
        if let bearer { request.setValue("Bearer \(bearer)", forHTTPHeaderField: "Authorization") }
        for (name, value) in extraHeaders { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await session.data(for: request)
        let http = response as! HTTPURLResponse
        var headers: [String: String] = [:]
        for (name, value) in http.allHeaderFields { headers["\(name)"] = "\(value)" }
        return ConsoleResponse(status: http.statusCode, headers: headers, body: String(decoding: data, as: UTF8.self))
    }

    /// Signs in as `user` (by default the harness's user whose token it is) with `token` through the form, keeping the
    /// session cookie; answers the sign-in's response.
    @discardableResult
    func signIn(_ token: String, user: String? = nil) async throws -> ConsoleResponse {
        let name = user ?? consoleUsers.first { $0.value == token }?.key ?? "alice"
        let response = try await post("/signin", [("user", name), ("token", token)])
        if let setCookie = response.header("Set-Cookie"), let pair = setCookie.split(separator: ";").first {
            cookie = String(pair)
        }
        return response
    }

    /// The CSRF token of the write form in `page`.
    static func csrf(in page: String) -> String? {
        guard let range = page.range(of: "name=\"csrf\" value=\"") else { return nil }
        let rest = page[range.upperBound...]
        return rest.firstIndex(of: "\"").map { String(rest[..<$0]) }
    }
}
