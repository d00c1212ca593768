import Foundation

/// A durable file a service found and could not use: its bytes did not verify, or it could not be read at all (a
/// folder in its place, a read error). Such a file may still hold what the service exists to keep (counts not yet
/// shipped, devices' caps), so it is never overwritten by the service's next save: it is renamed beside itself,
/// `NAME.unusable-YYYYMMDDTHHMMSSZ` (and `-2`, `-3`, … when that name is taken), for an operator to look at, and the
/// service goes on without it.
public enum SetAsideFile {
    /// Why a file was set aside, and where it went.
    public struct Note: Sendable, Equatable {
        public let original: URL
        public let setAside: URL
        public let reason: String
    }

    /// The bytes of the file at `url`: `nil` when there is none; an error (``Unreadable``) when something is there that
    /// cannot be read, which is not the same as no file.
    public static func contents(of url: URL) throws -> [UInt8]? {
        do {
            return [UInt8](try Data(contentsOf: url))
        } catch {
            guard let detail = unreadable(url, after: error) else { return nil }
            throw Unreadable(url: url, detail: detail)
        }
    }

    /// Once a read of `url` failed with `error`: `nil` when no file is there (a link to nowhere is none: a save replaces
    /// the link), else why what is there cannot be read.
    public static func unreadable(_ url: URL, after error: any Error) -> String? {
        var info = stat()
        guard lstat(url.path, &info) == 0 else {
            return errno == ENOENT || errno == ENOTDIR ? nil : String(cString: strerror(errno))
        }
        if info.st_mode & S_IFMT == S_IFLNK {
            guard stat(url.path, &info) == 0 else { return nil }
        }
        return info.st_mode & S_IFMT == S_IFDIR ? "a folder is in its place" : "\(error)"
    }

    /// Something is at a durable file's path that cannot be read.
    public struct Unreadable: Error, CustomStringConvertible {
        public let url: URL
        public let detail: String
        public var description: String { "cannot read \(url.path): \(detail)" }
    }

    /// Renames the file at `url` aside (see the type's description) and says where it went; an error when it cannot be
    /// renamed, and then the caller must not go on to overwrite it.
    public static func move(_ url: URL, reason: String, now: Date = Date()) throws -> Note {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        let base = "\(url.lastPathComponent).unusable-\(formatter.string(from: now))"
        let folder = url.deletingLastPathComponent()
        for attempt in 1...1000 {
            let target = folder.appendingPathComponent(attempt == 1 ? base : "\(base)-\(attempt)")
            var info = stat()
            guard lstat(target.path, &info) != 0 else { continue }
            // A rename within the folder: the bytes stay where they were, whatever they are.
            guard rename(url.path, target.path) == 0 else {
                throw CannotSetAside(url: url, detail: String(cString: strerror(errno)))
            }
            return Note(original: url, setAside: target, reason: reason)
        }
        throw CannotSetAside(url: url, detail: "a thousand files of the name \(base) are already there")
    }

    /// A file that could not be used could not be renamed aside either: the service stops rather than overwrite it.
    public struct CannotSetAside: Error, CustomStringConvertible {
        public let url: URL
        public let detail: String
        public var description: String {
            "\(url.path) could not be used and could not be set aside (\(detail)); move it away or fix it, then start again"
        }
    }
}
