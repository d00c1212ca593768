import HTTPTypes
import Hummingbird

/// The console's responses, each with the headers that keep a page to itself: a content security policy that lets
/// in scripts, styles and images from the console alone (no inline script, nothing from another site), no sniffing,
/// no referrer sent to another site (same-origin: the console's own forms still carry their `Origin`, which a write
/// checks), no caching of pages.
enum ConsoleResponses {
    static let securityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; media-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
    static let referrerPolicy = HTTPField.Name("Referrer-Policy")!

    static func headers(contentType: String) -> HTTPFields {
        [.contentType: contentType, .contentSecurityPolicy: securityPolicy, .xContentTypeOptions: "nosniff",
         referrerPolicy: "same-origin", .cacheControl: "no-store"]
    }

    static func html(_ page: Page, status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status, headers: headers(contentType: "text/html; charset=utf-8"),
                 body: .init(byteBuffer: ByteBuffer(string: page.render())))
    }

    /// A page that says what went wrong, for someone signed in or not.
    static func problem(_ status: HTTPResponse.Status, _ message: String, user: String? = nil, csrf: String? = nil) -> Response {
        html(Page(title: status.reasonPhrase, user: user, csrf: csrf, body: "<p><a href=\"/\">Back to the campaigns</a></p>", message: message),
             status: status)
    }

    /// 303: after a form, the browser goes on with a GET.
    static func seeOther(_ location: String) -> Response {
        var headers = headers(contentType: "text/plain; charset=utf-8")
        headers[.location] = location
        return Response(status: .seeOther, headers: headers)
    }

    static func asset(_ text: String, contentType: String) -> Response {
        var headers = headers(contentType: contentType)
        headers[.cacheControl] = "no-cache"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}
