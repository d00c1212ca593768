import Foundation
import LaunchAdDomain

/// Creative bytes on disk, named by their sha256 (`creatives/ab/abcdef...`), written atomically: to a temporary
/// file, flushed, renamed, and the folder flushed. Nothing is ever looked up by a client-given path: a name that is
/// not 64 lowercase hex characters is refused before it touches the file system.
public struct CreativeFiles: Sendable {
    public let root: URL

    public init(directory: String) throws {
        root = URL(fileURLWithPath: directory).appendingPathComponent("creatives")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    }

    func path(_ sha256: String) -> URL? {
        guard CampaignRules.isSHA256(sha256) else { return nil }
        return root.appendingPathComponent(String(sha256.prefix(2))).appendingPathComponent(sha256)
    }

    /// Stores `bytes` under `sha256` (which the caller computed from them) unless the same bytes are already there.
    /// A file already under that name with other bytes (torn or rotted on disk) is replaced, never kept.
    public func store(_ bytes: [UInt8], sha256: String) throws {
        guard let final = path(sha256) else { throw CocoaError(.fileWriteInvalidFileName) }
        if let existing = FileManager.default.contents(atPath: final.path), existing.count == bytes.count,
           existing.elementsEqual(bytes) {
            return
        }
        try AtomicFile.write(bytes, to: final)
    }

    /// Removes what a crash in the middle of ``AtomicFile/write(_:to:)`` left behind: temporary files, never named
    /// as a creative, so never served, but taking room.
    public func removeLeftovers() {
        let manager = FileManager.default
        guard let folders = try? manager.contentsOfDirectory(atPath: root.path) else { return }
        for folder in folders {
            let url = root.appendingPathComponent(folder)
            for name in (try? manager.contentsOfDirectory(atPath: url.path)) ?? [] where AtomicFile.isTemporary(name) {
                try? manager.removeItem(at: url.appendingPathComponent(name))
            }
        }
    }

    /// Bytes `offset ..< offset + length` of a stored creative (fewer at its end), or `nil` if there is none.
    public func read(sha256: String, offset: Int, length: Int) throws -> [UInt8]? {
        guard let file = path(sha256), let handle = FileHandle(forReadingAtPath: file.path) else { return nil }
        defer { try? handle.close() }
        try handle.seek(toOffset: UInt64(offset))
        return [UInt8](try handle.read(upToCount: length) ?? Data())
    }

    /// Whether a creative's bytes are stored.
    public func contains(_ sha256: String) -> Bool {
        path(sha256).map { FileManager.default.fileExists(atPath: $0.path) } ?? false
    }
}

/// Writes a file atomically: a temporary file beside it, flushed, renamed over the old one, the folder flushed.
/// A crash leaves either the old file or the new one, never a part.
public enum AtomicFile {
    static let temporarySuffix = ".tmp"

    /// Whether `name` is one of the temporary files a write makes before its rename.
    public static func isTemporary(_ name: String) -> Bool {
        name.hasPrefix(".") && name.hasSuffix(temporarySuffix)
    }

    public static func write(_ bytes: [UInt8], to url: URL) throws {
        let folder = url.deletingLastPathComponent()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let temporary = folder.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString)\(temporarySuffix)")
        let fd = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL, 0o644)
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        let ok = writeWhole(bytes, to: fd)
        let code = errno
        close(fd)
        guard ok, rename(temporary.path, url.path) == 0 else {
            let failure = ok ? errno : code
            unlink(temporary.path)
            throw POSIXError(POSIXErrorCode(rawValue: failure) ?? .EIO)
        }
        syncFolder(folder)
    }

    /// Writes all of `bytes` to `fd` (through interrupted and short writes) and syncs it; returns whether both
    /// succeeded, with `errno` telling why not.
    public static func writeWhole(_ bytes: [UInt8], to fd: Int32) -> Bool {
        var written = 0
        return bytes.withUnsafeBytes { raw -> Bool in
            while written < raw.count {
                let n = Glibc.write(fd, raw.baseAddress! + written, raw.count - written)
                if n < 0 { if errno == EINTR { continue }; return false }
                written += n
            }
            return fsync(fd) == 0
        }
    }

    /// Syncs a folder, so that the names created or renamed in it last (best effort).
    public static func syncFolder(_ folder: URL) {
        let directory = open(folder.path, O_RDONLY | O_CLOEXEC)
        if directory >= 0 {
            fsync(directory)
            close(directory)
        }
    }
}
