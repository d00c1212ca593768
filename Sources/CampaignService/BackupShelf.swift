import CampaignStore
import DurableFiles
import Foundation
import JSONRPC
import LaunchAdAPI
import Logging

/// The database copies `backup.create` made, in `DATA_DIR/backups`, until `backup.read` has not touched them for
/// ``keep``; at most ``most`` at once (a new one pushes out the oldest). Each is a file named by a random token, so
/// nothing a client sends is ever a path.
actor BackupShelf {
    struct Held {
        var info: BackupInfo
        var url: URL
        var touched: ContinuousClock.Instant
    }

    static let keep = Duration.seconds(600)
    static let most = 2

    private let folder: URL
    private let store: any Store
    private let logger: Logger
    private var held: [String: Held] = [:]

    /// Empties the folder: copies of an earlier run are gone with the tokens that named them.
    init(dataDirectory: String, store: any Store, logger: Logger) throws {
        folder = URL(fileURLWithPath: dataDirectory).appendingPathComponent("backups")
        try? FileManager.default.removeItem(at: folder)
        self.store = store
        self.logger = logger
    }

    func create() async throws -> BackupInfo {
        prune()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let token = (0..<2).map { _ in String(format: "%016llx", UInt64.random(in: .min ... .max)) }.joined()
        let url = folder.appendingPathComponent("\(token).sqlite")
        let seq: Int64
        let epoch: String
        do {
            (seq, epoch) = try await store.backup(to: url.path)
        } catch {
            try? FileManager.default.removeItem(at: url)
            throw error
        }
        let bytes = try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int64 ?? 0
        let info = BackupInfo(backup: token, bytes: bytes, sha256: try FileDigest.sha256(of: url), seq: seq, epoch: epoch,
                              keptSeconds: Int(Self.keep.components.seconds))
        while held.count >= Self.most, let oldest = held.min(by: { $0.value.touched < $1.value.touched }) {
            drop(oldest.key)
        }
        held[token] = Held(info: info, url: url, touched: .now)
        logger.info("backup made", metadata: ["backup": "\(token)", "bytes": "\(bytes)", "seq": "\(seq)"])
        return info
    }

    func read(_ params: BackupReadParams) throws -> BackupChunk {
        prune()
        let length = params.length ?? BackupReadParams.maxLength
        guard (1...BackupReadParams.maxLength).contains(length) else {
            throw JSONRPCError.invalidParams(field: "length", "must be 1 to \(BackupReadParams.maxLength)")
        }
        guard params.offset >= 0 else { throw JSONRPCError.invalidParams(field: "offset", "must not be negative") }
        guard var entry = held[params.backup] else {
            throw JSONRPCError(code: APIError.backupUnavailable.code, message: "no backup \(params.backup): never made here, or not read for \(Self.keep.components.seconds) s and removed")
        }
        guard params.offset <= entry.info.bytes else {
            throw JSONRPCError.invalidParams(field: "offset", "past the end of the backup (\(entry.info.bytes) bytes)")
        }
        let handle = try FileHandle(forReadingFrom: entry.url)
        defer { try? handle.close() }
        try handle.seek(toOffset: UInt64(params.offset))
        let data = try handle.read(upToCount: length) ?? Data()
        entry.touched = .now
        held[params.backup] = entry
        return BackupChunk(offset: params.offset, data: data.base64EncodedString(),
                           last: params.offset + Int64(data.count) >= entry.info.bytes)
    }

    private func prune() {
        let now = ContinuousClock.now
        for (token, entry) in held where now - entry.touched > Self.keep { drop(token) }
    }

    private func drop(_ token: String) {
        guard let entry = held.removeValue(forKey: token) else { return }
        try? FileManager.default.removeItem(at: entry.url)
    }
}
