#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import HTTPTypes
import LaunchAdDomain
import NIOCore
import NIOHTTP1
import NIOHTTPTypes

/// What ``HTTPEdgeHandler`` needs to know of a request's head, however the connection's codec gave it.
struct HTTPRequestSummary {
    var method: String
    var path: String
    var contentType: String?
    var contentLength: Int?
    var expectsContinue: Bool
    /// The client asked for the connection to close after this answer (or, in HTTP/1.0, did not ask to keep it).
    var closes: Bool
}

extension HTTPRequestSummary {
    /// What `path` names.
    static func route(_ path: String) -> HTTPMetrics.Route {
        let utf8 = path.utf8
        func names(_ prefix: StaticString) -> Bool {
            let count = prefix.utf8CodeUnitCount
            guard utf8.count >= count else { return false }
            let matches = UnsafeBufferPointer(start: prefix.utf8Start, count: count).elementsEqual(utf8.prefix(count))
            // The whole path, or the path before a query.
            return matches && (utf8.count == count || utf8[utf8.index(utf8.startIndex, offsetBy: count)] == UInt8(ascii: "?"))
        }
        if names("/rpc") { return .rpc }
        if names("/launch-ad") { return .launchAd }
        if path.hasPrefix("/creatives/") { return .creatives }
        if names("/metrics") || names("/healthz") { return .ops }
        return .other
    }

    /// The content type is `application/json` or `application/json-rpc`, with any parameters.
    var isJSON: Bool {
        guard let contentType else { return false }
        return Self.isJSON(contentType)
    }

    /// `value` names `application/json` or `application/json-rpc`: the media type before any `;` and its parameters,
    /// compared byte by byte with ASCII's letters folded, optional whitespace (space, tab) around it ignored as
    /// RFC 9110 allows. Read in place: no copy, no Foundation, as it runs on every `POST /rpc`.
    static func isJSON(_ value: String) -> Bool {
        value.utf8.withContiguousStorageIfAvailable(isJSON) ?? Array(value.utf8).withUnsafeBufferPointer(isJSON)
    }

    private static func isJSON(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        func isOWS(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        var start = 0
        var end = bytes.firstIndex(of: UInt8(ascii: ";")) ?? bytes.count
        while start < end && isOWS(bytes[start]) { start += 1 }
        while end > start && isOWS(bytes[end - 1]) { end -= 1 }
        let type = UnsafeBufferPointer(rebasing: bytes[start..<end])
        return names(type, "application/json") || names(type, "application/json-rpc")
    }

    /// `bytes` are `lowercase` (ASCII, in lower case) but for the case of ASCII's letters.
    private static func names(_ bytes: UnsafeBufferPointer<UInt8>, _ lowercase: StaticString) -> Bool {
        guard bytes.count == lowercase.utf8CodeUnitCount else { return false }
        let expected = UnsafeBufferPointer(start: lowercase.utf8Start, count: lowercase.utf8CodeUnitCount)
        for index in 0..<bytes.count {
            let byte = bytes[index]
            let folded = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
            guard folded == expected[index] else { return false }
        }
        return true
    }
}

/// A request part as ``HTTPEdgeHandler`` reads it.
enum HTTPEdgeInbound {
    case head(HTTPRequestSummary)
    case body(ByteBuffer)
    case end
}

/// An answer part passing out from Hummingbird, as ``HTTPEdgeHandler`` counts it.
enum HTTPEdgeOutbound {
    case head(status: Int)
    case body
    case end
}

/// An own answer: a status, a few header fields, a body.
struct HTTPEdgeAnswer {
    var status: HTTPResponse.Status
    var headers: [(name: HTTPField.Name, value: String)]
    var body: ByteBuffer?
    /// `body` begins with the head already written by ``HTTPEdgeWire/buffer(for:length:allocator:)``.
    var headed = false

    static let json: [(name: HTTPField.Name, value: String)] = [(.contentType, "application/json")]
    static let uncachedJSON: [(name: HTTPField.Name, value: String)] = [(.contentType, "application/json"), (.cacheControl, "no-store")]
}

/// An own answer's status line and header fields as HTTP/1.1 writes them, up to the value of its `Content-Length`:
/// rendered once for the answers every query gets, so that writing one is a copy, not a field at a time.
struct HTTPPreparedHead: Sendable {
    let status: HTTPResponse.Status
    let headers: [(name: HTTPField.Name, value: String)]
    /// `HTTP/1.1 200 OK\r\n`, the fields, then `Content-Length: `.
    let http1: [UInt8]

    init(_ status: HTTPResponse.Status, _ headers: [(name: HTTPField.Name, value: String)]) {
        self.status = status
        self.headers = headers
        var bytes = ByteBuffer()
        HTTP1Wire.writeStatusAndFields(status, headers, into: &bytes)
        bytes.writeStaticString("Content-Length: ")
        http1 = Array(bytes.readableBytesView)
    }

    /// A JSON-RPC reply.
    static let json = HTTPPreparedHead(.ok, HTTPEdgeAnswer.json)
    /// `GET /launch-ad`'s answer, and its answer to a query it cannot read.
    static let launchAd = HTTPPreparedHead(.ok, HTTPEdgeAnswer.uncachedJSON)
    static let launchAdRefused = HTTPPreparedHead(.badRequest, HTTPEdgeAnswer.uncachedJSON)
}

/// The `Date` field of the edge's own answers (RFC 9110's IMF-fixdate, `Sun, 06 Nov 1994 08:49:37 GMT`), rendered
/// again only when the second has changed: a connection keeps one and refreshes it before each answer.
struct HTTPDate {
    private var second = -1
    /// `Date: ` and the date, then CR LF.
    private(set) var field: [UInt8] = []

    /// The field for the current second (`now`, seconds since 1970, is the wall clock's unless a test gives it).
    mutating func refresh(now: Int = time(nil)) {
        guard now != second else { return }
        second = now
        field = Self.field(now)
    }

    /// The date alone, for HTTP/2's field.
    var value: String { String(decoding: field.dropFirst(6).dropLast(2), as: UTF8.self) }

    /// The field at `seconds` since 1970 (UTC), as RFC 9110 § 5.6.7 writes it.
    static func field(_ seconds: Int) -> [UInt8] {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let time = seconds - days * 86_400
        let (year, month, day) = Timestamp.civilFromDays(days)
        // 1970-01-01 was a Thursday.
        let weekday = ((days % 7) + 11) % 7
        let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let year4 = String(repeating: "0", count: max(0, 4 - String(year).count)) + String(year)
        let text = "Date: \(weekdays[weekday]), \(two(day)) \(months[month - 1]) \(year4) \(two(time / 3600)):\(two(time / 60 % 60)):\(two(time % 60)) GMT\r\n"
        return Array(text.utf8)
    }
}

/// The parts of a connection's codec: the HTTP/1.1 codec's own (below the conversion to HTTP types, where the edge's
/// answers are written as bytes), or the HTTP types of an HTTP/2 stream.
protocol HTTPEdgeWire {
    associatedtype RequestPart
    associatedtype ResponsePart
    /// The `protocol` label: "1.1" or "2".
    static var version: String { get }
    /// A request part as it came in. (The part is taken out of its `NIOAny` here, where its type is known, not in
    /// the generic handler, where each took a look-up of the `Optional` of the part's type and an unspecialized cast.)
    static func inbound(_ data: NIOAny) -> HTTPEdgeInbound
    /// An answer part as it goes out, likewise.
    static func outbound(_ data: NIOAny) -> HTTPEdgeOutbound
    /// Writes `answer` whole, with the `Date` field `date`; `written` completes once all of it is written (for the
    /// reply budget).
    static func write(_ answer: HTTPEdgeAnswer, date: HTTPDate, context: ChannelHandlerContext, codec: ChannelHandlerContext?,
                      written: EventLoopPromise<Void>?)
    /// A buffer for the body of an answer with `head`, of `length` bytes: HTTP/1.1's begins with the head, so that
    /// the answer goes out as one buffer written once (``HTTPEdgeAnswer/headed``); `nil` where that is not done.
    static func buffer(for head: HTTPPreparedHead, length: Int, date: HTTPDate, allocator: ByteBufferAllocator) -> ByteBuffer?
    /// The 100 Continue interim answer.
    static func writeContinue(context: ChannelHandlerContext, codec: ChannelHandlerContext?)
}

/// HTTP/1.1, below the conversion to HTTP types: the head as the codec parsed it, answers written as bytes to the
/// response encoder's own context (one buffer each, bypassing the encoder, which only ever sees Hummingbird's answers
/// whole and in turn).
enum HTTP1Wire: HTTPEdgeWire {
    typealias RequestPart = HTTPServerRequestPart
    typealias ResponsePart = HTTPServerResponsePart
    static let version = "1.1"

    static func inbound(_ data: NIOAny) -> HTTPEdgeInbound {
        switch HTTPEdgeHandler<Self>.unwrapInboundIn(data) {
        case .head(let head):
            return .head(HTTPRequestSummary(
                method: head.method.rawValue, path: head.uri, contentType: head.headers.first(name: "content-type"),
                contentLength: head.headers.first(name: "content-length").flatMap { Int($0) },
                expectsContinue: head.headers.first(name: "expect")?.lowercased() == "100-continue",
                closes: !head.isKeepAlive))
        case .body(let buffer):
            return .body(buffer)
        case .end:
            return .end
        }
    }

    static func outbound(_ data: NIOAny) -> HTTPEdgeOutbound {
        switch HTTPEdgeHandler<Self>.unwrapOutboundIn(data) {
        case .head(let head): .head(status: Int(head.status.code))
        case .body: .body
        case .end: .end
        }
    }

    static func write(_ answer: HTTPEdgeAnswer, date: HTTPDate, context: ChannelHandlerContext, codec: ChannelHandlerContext?,
                      written: EventLoopPromise<Void>?) {
        if answer.headed, let bytes = answer.body {
            (codec ?? context).write(NIOAny(IOData.byteBuffer(bytes)), promise: written)
            return
        }
        let length = answer.body?.readableBytes ?? 0
        var bytes = context.channel.allocator.buffer(capacity: 160 + length)
        writeStatusAndFields(answer.status, answer.headers, into: &bytes)
        let sized = answer.status != .noContent && answer.status.kind != .informational
        if sized { bytes.writeStaticString("Content-Length: ") }
        writeEnd(length: sized ? length : nil, date: date, into: &bytes)
        if var body = answer.body { bytes.writeBuffer(&body) }
        (codec ?? context).write(NIOAny(IOData.byteBuffer(bytes)), promise: written)
    }

    static func buffer(for head: HTTPPreparedHead, length: Int, date: HTTPDate, allocator: ByteBufferAllocator) -> ByteBuffer? {
        var bytes = allocator.buffer(capacity: head.http1.count + 24 + date.field.count + length)
        bytes.writeBytes(head.http1)
        writeEnd(length: length, date: date, into: &bytes)
        return bytes
    }

    /// The status line and `headers`, each line ended.
    static func writeStatusAndFields(_ status: HTTPResponse.Status, _ headers: [(name: HTTPField.Name, value: String)],
                                     into bytes: inout ByteBuffer) {
        bytes.writeStaticString("HTTP/1.1 ")
        bytes.writeString(String(status.code))
        bytes.writeStaticString(" ")
        bytes.writeString(status.reasonPhrase)
        bytes.writeStaticString("\r\n")
        for field in headers {
            bytes.writeString(field.name.rawName)
            bytes.writeStaticString(": ")
            bytes.writeString(field.value)
            bytes.writeStaticString("\r\n")
        }
    }

    /// The end of a head, in one write: `length` (the value of a `Content-Length` already begun) and its line's end,
    /// the `Date` field, the empty line.
    private static func writeEnd(length: Int?, date: HTTPDate, into bytes: inout ByteBuffer) {
        let field = date.field
        bytes.writeWithUnsafeMutableBytes(minimumWritableBytes: 24 + field.count) { out in
            var at = 0
            if let length {
                var digits = 1
                var rest = length / 10
                while rest > 0 { digits += 1; rest /= 10 }
                rest = length
                for index in stride(from: digits - 1, through: 0, by: -1) {
                    out[at + index] = UInt8(ascii: "0") + UInt8(rest % 10)
                    rest /= 10
                }
                at += digits
                out[at] = UInt8(ascii: "\r")
                out[at + 1] = UInt8(ascii: "\n")
                at += 2
            }
            field.withUnsafeBytes { out.baseAddress!.advanced(by: at).copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
            at += field.count
            out[at] = UInt8(ascii: "\r")
            out[at + 1] = UInt8(ascii: "\n")
            return at + 2
        }
    }

    static func writeContinue(context: ChannelHandlerContext, codec: ChannelHandlerContext?) {
        let bytes = context.channel.allocator.buffer(staticString: "HTTP/1.1 100 Continue\r\n\r\n")
        (codec ?? context).writeAndFlush(NIOAny(IOData.byteBuffer(bytes)), promise: nil)
    }
}

/// An HTTP/2 stream: HTTP types both ways.
enum HTTPTypesWire: HTTPEdgeWire {
    typealias RequestPart = HTTPRequestPart
    typealias ResponsePart = HTTPResponsePart
    static let version = "2"

    static func inbound(_ data: NIOAny) -> HTTPEdgeInbound {
        switch HTTPEdgeHandler<Self>.unwrapInboundIn(data) {
        case .head(let request):
            return .head(HTTPRequestSummary(
                method: request.method.rawValue, path: request.path ?? "", contentType: request.headerFields[.contentType],
                contentLength: request.headerFields[.contentLength].flatMap { Int($0) },
                expectsContinue: request.headerFields[.expect]?.lowercased() == "100-continue", closes: false))
        case .body(let buffer):
            return .body(buffer)
        case .end:
            return .end
        }
    }

    static func outbound(_ data: NIOAny) -> HTTPEdgeOutbound {
        switch HTTPEdgeHandler<Self>.unwrapOutboundIn(data) {
        case .head(let response): .head(status: response.status.code)
        case .body: .body
        case .end: .end
        }
    }

    static func write(_ answer: HTTPEdgeAnswer, date: HTTPDate, context: ChannelHandlerContext, codec: ChannelHandlerContext?,
                      written: EventLoopPromise<Void>?) {
        var response = HTTPResponse(status: answer.status)
        for field in answer.headers { response.headerFields[field.name] = field.value }
        response.headerFields[.date] = date.value
        if answer.status != .noContent { response.headerFields[.contentLength] = String(answer.body?.readableBytes ?? 0) }
        context.write(NIOAny(HTTPResponsePart.head(response)), promise: nil)
        if let body = answer.body { context.write(NIOAny(HTTPResponsePart.body(body)), promise: nil) }
        context.write(NIOAny(HTTPResponsePart.end(nil)), promise: written)
    }

    static func buffer(for head: HTTPPreparedHead, length: Int, date: HTTPDate, allocator: ByteBufferAllocator) -> ByteBuffer? {
        nil
    }

    static func writeContinue(context: ChannelHandlerContext, codec: ChannelHandlerContext?) {
        context.writeAndFlush(NIOAny(HTTPResponsePart.head(HTTPResponse(status: .continue))), promise: nil)
    }
}
