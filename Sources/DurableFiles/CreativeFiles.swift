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

    /// Whether creatives can be written: a file is made and removed in the creatives' folder and in the folder each
    /// of `sha256s` would be stored in. Throws why not.
    public func probe(for sha256s: some Sequence<String>) throws {
        var folders = [root.path]
        for sha256 in sha256s {
            if let file = path(sha256) { folders.append(file.deletingLastPathComponent().path) }
        }
        var probed = Set<String>()
        for folder in folders where probed.insert(folder).inserted {
            try AtomicFile.probe(folder: folder)
        }
    }

    /// Removes what a crash in the middle of ``AtomicFile/write(_:to:)`` left behind: temporary files, never named
    /// as a creative, so never served, but taking room.
    public func removeLeftovers() {
        let manager = FileManager.default
        guard let folders = try? manager.contentsOfDirectory(atPath: root.path) else { return }
        for folder in folders {
            let url = root.appendingPathComponent(folder)
            if AtomicFile.isTemporary(folder) {
                // A probe's (``probe(for:)``).
                try? manager.removeItem(at: url)
                continue
            }
            for name in (try? manager.contentsOfDirectory(atPath: url.path)) ?? [] where AtomicFile.isTemporary(name) {
                try? manager.removeItem(at: url.appendingPathComponent(name))
            }
        }
    }

    /// The size of a stored creative's file, or `nil` if there is none.
    public func storedSize(sha256: String) -> Int? {
        guard let file = path(sha256) else { return nil }
        var info = stat()
        guard stat(file.path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return Int(info.st_size)
    }

    /// Bytes `offset ..< offset + length` of a stored creative (fewer at its end), or `nil` if there is none.
    public func read(sha256: String, offset: Int, length: Int) throws -> [UInt8]? {
        guard let file = path(sha256), let handle = FileHandle(forReadingAtPath: file.path) else { return nil }
        defer { try? handle.close() }
        try handle.seek(toOffset: UInt64(offset))
        return [UInt8](try handle.read(upToCount: length) ?? Data())
    }
}
