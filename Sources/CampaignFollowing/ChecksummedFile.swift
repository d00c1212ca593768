import Crypto
import DurableFiles
import Foundation
import JSONRPC

/// A file of the cache folder that is never trusted unless it verifies: `{"checksum":…,"body":…}`, the checksum
/// being the sha256 of the body's exact bytes.
public enum ChecksummedFile {
    private static let prefix = Array("{\"checksum\":\"".utf8)
    private static let separator = Array("\",\"body\":".utf8)
    /// What fills a file overwritten in place after its bytes.
    static let filler = UInt8(ascii: " ")

    /// The file's bytes for `body`.
    public static func contents(body: [UInt8]) -> [UInt8] {
        var file = prefix
        file.reserveCapacity(body.count + 100)
        file += SHA256.hash(data: body).hexBytes
        file += separator
        file += body
        file.append(UInt8(ascii: "}"))
        return file
    }

    /// The body of a file's bytes (the exact bytes between the separator and the final brace), or `nil` when they are
    /// not such a file or the body does not match its checksum. Spaces after the final brace are the filler of a file
    /// overwritten in place (``InPlaceFile``), and are not part of it.
    static func body(of whole: [UInt8]) -> [UInt8]? {
        var end = whole.count
        while end > 0 && whole[end - 1] == filler { end -= 1 }
        let bytes = whole[..<end]
        let bodyStart = prefix.count + 64 + separator.count
        guard bytes.count > bodyStart, bytes.starts(with: prefix), bytes.last == UInt8(ascii: "}"),
              bytes[(prefix.count + 64)..<bodyStart].elementsEqual(separator) else { return nil }
        let body = Array(bytes[bodyStart..<bytes.count - 1])
        guard SHA256.hash(data: body).hexBytes.elementsEqual(bytes[prefix.count..<prefix.count + 64]) else { return nil }
        return body
    }

    /// The body of the file at `url`, decoded: `nil` when there is no file, or (`discarded`) when its bytes do not
    /// verify or do not decode.
    public static func read<Body: Decodable>(_ type: Body.Type, at url: URL) -> (body: Body?, discarded: Bool) {
        guard let data = FileManager.default.contents(atPath: url.path) else { return (nil, false) }
        guard let bytes = body(of: [UInt8](data)),
              let decoded = try? JSONValueDecoder(rejectUnknownKeys: false).decode(Body.self, fromJSON: bytes) else {
            return (nil, true)
        }
        return (decoded, false)
    }

    /// The body of the file at `url`, decoded, for a file whose loss loses what the service keeps (counts not shipped,
    /// devices' caps): `nil` when there is no file. A file that does not verify, does not decode or cannot be read is
    /// not left for the next save to overwrite: it is set aside (``SetAsideFile``) and `setAside` says where and why.
    /// An error when it could not be set aside.
    public static func load<Body: Decodable>(_ type: Body.Type, at url: URL) throws -> (body: Body?, setAside: SetAsideFile.Note?) {
        let whole: [UInt8]
        do {
            guard let bytes = try SetAsideFile.contents(of: url) else { return (nil, nil) }
            whole = bytes
        } catch let unreadable as SetAsideFile.Unreadable {
            return (nil, try SetAsideFile.move(url, reason: unreadable.detail))
        }
        guard let bytes = body(of: whole) else { return (nil, try SetAsideFile.move(url, reason: "its checksum does not verify")) }
        do {
            return (try JSONValueDecoder(rejectUnknownKeys: false).decode(Body.self, fromJSON: bytes), nil)
        } catch {
            return (nil, try SetAsideFile.move(url, reason: "it verifies but does not decode (\(error))"))
        }
    }
}
