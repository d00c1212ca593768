import Foundation

/// Writes a file atomically: a temporary file beside it, flushed, renamed over the old one, the folder flushed.
/// A crash leaves either the old file or the new one, never a part.
public enum AtomicFile {
    static let temporarySuffix = ".tmp"

    /// Whether `name` is one of the temporary files a write makes before its rename.
    public static func isTemporary(_ name: String) -> Bool {
        name.hasPrefix(".") && name.hasSuffix(temporarySuffix)
    }

    public static func write(_ bytes: [UInt8], to url: URL) throws {
        try write(to: url) { write in try write(bytes) }
    }

    /// Writes a file atomically from the pieces `produce` hands to its `write`, in order (so that a large file need
    /// not be in memory whole). An error thrown by `produce` leaves the old file. The folder is made when missing.
    public static func write(to url: URL, _ produce: (_ write: ([UInt8]) throws -> Void) throws -> Void) throws {
        // Paths as strings, worked out once: a `URL` makes its path again each time it is asked.
        let path = url.path
        let folder: String, name: Substring
        if let slash = path.lastIndex(of: "/") {
            folder = slash == path.startIndex ? "/" : String(path[..<slash])
            name = path[path.index(after: slash)...]
        } else {
            (folder, name) = (".", Substring(path))
        }
        let temporary = "\(folder == "/" ? "" : folder)/.\(name).\(UUID().uuidString)\(temporarySuffix)"
        var fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        if fd < 0 && errno == ENOENT {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        }
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        do {
            try produce { bytes in
                guard writeAll(bytes, to: fd) else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            }
            guard fsync(fd) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        } catch {
            close(fd)
            unlink(temporary)
            throw error
        }
        close(fd)
        guard rename(temporary, path) == 0 else {
            let failure = errno
            unlink(temporary)
            throw POSIXError(POSIXErrorCode(rawValue: failure) ?? .EIO)
        }
        syncFolder(atPath: folder)
    }

    /// Whether a file can be made in `folder` (made first when missing): an empty temporary file is created there and
    /// removed at once. Throws why not.
    public static func probe(folder: String) throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let temporary = "\(folder)/.probe.\(UUID().uuidString)\(temporarySuffix)"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        close(fd)
        unlink(temporary)
    }

    /// Writes all of `bytes` to `fd` (through interrupted and short writes) and syncs it; returns whether both
    /// succeeded, with `errno` telling why not.
    public static func writeWhole(_ bytes: [UInt8], to fd: Int32) -> Bool {
        writeAll(bytes, to: fd) && fsync(fd) == 0
    }

    /// Writes all of `bytes` to `fd` from its current offset, through interrupted and short writes; returns whether it
    /// succeeded.
    public static func writeAll(_ bytes: [UInt8], to fd: Int32) -> Bool {
        var written = 0
        return bytes.withUnsafeBytes { raw -> Bool in
            while written < raw.count {
                let n = Glibc.write(fd, raw.baseAddress! + written, raw.count - written)
                if n < 0 { if errno == EINTR { continue }; return false }
                written += n
            }
            return true
        }
    }

    /// Syncs a folder, so that the names created or renamed in it last (best effort).
    public static func syncFolder(_ folder: URL) {
        syncFolder(atPath: folder.path)
    }

    static func syncFolder(atPath folder: String) {
        let directory = open(folder, O_RDONLY | O_CLOEXEC)
        if directory >= 0 {
            fsync(directory)
            close(directory)
        }
    }
}
