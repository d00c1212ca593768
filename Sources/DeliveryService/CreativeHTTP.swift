import CampaignFollowing
import Foundation
import Hummingbird
import LaunchAdDomain
import NIOCore

/// Serves creative bytes over HTTP: by sha256 only, with a strong ETag, `Cache-Control: immutable`, and ranges.
enum CreativeHTTP {
    /// The answer to a `GET`, or with `head` to a `HEAD`: the same status and headers (`Content-Length` the bytes a
    /// `GET` sends), no body, and nothing read but whether the creative is stored.
    static func respond(request: Request, sha256: String, cell: StateCell, cache: CreativeCache, head: Bool = false) throws -> Response {
        guard CampaignRules.isSHA256(sha256), let facts = cell.state.creatives[sha256] else {
            return Response(status: .notFound)
        }
        let etag = "\"\(sha256)\""
        var headers: HTTPFields = [.contentType: facts.contentType, .eTag: etag, .cacheControl: "public, max-age=31536000, immutable",
                                   .acceptRanges: "bytes"]
        if let tags = request.headers[.ifNoneMatch], matches(tags, etag: etag) { return Response(status: .notModified, headers: headers) }
        var start = 0
        var end = facts.size - 1
        var status = HTTPResponse.Status.ok
        // A range applies only while If-Range (when given) names this representation; a date never does (no
        // Last-Modified is sent), so the whole body goes then.
        if let range = request.headers[.range], request.headers[.ifRange].map({ $0 == etag }) ?? true {
            switch ranged(range, size: facts.size) {
            case .whole:
                break
            case .unsatisfiable:
                headers[.contentRange] = "bytes */\(facts.size)"
                return Response(status: .rangeNotSatisfiable, headers: headers)
            case .part(let first, let last):
                (start, end) = (first, last)
                status = .partialContent
                headers[.contentRange] = "bytes \(start)-\(end)/\(facts.size)"
            }
        }
        if head {
            guard cache.holds(sha256: sha256, size: facts.size) else { return Response(status: .notFound) }
            // Set before the response is made with its empty body, which keeps it.
            headers[.contentLength] = String(end - start + 1)
            return Response(status: status, headers: headers)
        }
        guard let bytes = try cache.read(sha256: sha256, size: facts.size, offset: start, length: end - start + 1) else {
            return Response(status: .notFound)
        }
        headers[.contentLength] = String(bytes.count)
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    /// What a `Range` header asks of `size` bytes (RFC 9110, 14.2).
    enum RangeAnswer: Equatable {
        /// The whole body, as if there were no header: another unit, an invalid range, or several ranges (which a
        /// server may answer whole).
        case whole
        /// Bytes `first` through `last`.
        case part(Int, Int)
        /// None of it: a range that starts past the end, or an empty suffix.
        case unsatisfiable
    }

    /// One `bytes=a-b`, `bytes=a-` or `bytes=-n` range within `size`: an end past the last byte (however large)
    /// means the last byte, and a suffix longer than the body means all of it.
    static func ranged(_ header: String, size: Int) -> RangeAnswer {
        guard let equals = header.firstIndex(of: "="), header[..<equals].trimmingCharacters(in: .whitespaces).lowercased() == "bytes"
        else { return .whole }
        let specs = header[header.index(after: equals)...].split(separator: ",", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }
        guard specs.count == 1, let dash = specs[0].firstIndex(of: "-") else { return .whole }
        // Digits only; a value too large for an Int stands for the largest one.
        func number(_ text: Substring) -> Int? {
            guard !text.isEmpty, text.utf8.allSatisfy({ $0 &- UInt8(ascii: "0") < 10 }) else { return nil }
            return text.utf8.reduce(0) { value, digit in
                let (times, overflow) = value.multipliedReportingOverflow(by: 10)
                let (sum, carry) = times.addingReportingOverflow(Int(digit - UInt8(ascii: "0")))
                return overflow || carry ? .max : sum
            }
        }
        let spec = specs[0], before = spec[..<dash], after = spec[spec.index(after: dash)...]
        if before.isEmpty {
            guard let suffix = number(after) else { return .whole }
            return suffix == 0 || size == 0 ? .unsatisfiable : .part(max(0, size - suffix), size - 1)
        }
        guard let first = number(before) else { return .whole }
        let last: Int
        if after.isEmpty {
            last = .max
        } else {
            guard let value = number(after), value >= first else { return .whole }
            last = value
        }
        return first >= size ? .unsatisfiable : .part(first, min(last, size - 1))
    }

    /// Whether an `If-None-Match` list names the representation of `etag` (a strong tag), by the weak comparison the
    /// header calls for: `*`, or a tag equal to it with or without `W/`.
    static func matches(_ list: String, etag: String) -> Bool {
        list.split(separator: ",").contains { item in
            let tag = item.trimmingCharacters(in: .whitespaces)
            return tag == "*" || tag == etag || tag == "W/" + etag
        }
    }
}
