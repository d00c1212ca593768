import DurableFiles
import Foundation
import LaunchAdDomain
import LaunchAdRuntime
import Logging
import ServiceLifecycle
import ZeroMQ
import ZMQRPC

/// The state an edge or a relay answers from, kept in step with its upstream (campaignd, or a relay): loaded from the
/// cache folder at once (only what verifies), then followed by the sync engine, with the creatives it needs fetched
/// and verified. `deliveryd` and `relayd` both build it; `follower` hears each change a relay passes on.
public final class FollowedState: Sendable {
    public let cell: StateCell
    public let status: SyncStatus
    public let cacheHealth: CacheHealth
    /// The creatives' bytes: read through ``read(sha256:offset:length:)``.
    public let cache: CreativeCache
    let files: CreativeFiles
    let engine: SyncEngine

    /// `sealer`, with CURVE: seals each acknowledgement for campaignd (see ``RecordSealer``).
    public init(configuration: FollowingConfiguration, context: ZMQContext, curve: CurveClientOptions?, sealer: RecordSealer? = nil,
                logger: Logger, clock: @escaping @Sendable () -> Timestamp, follower: (any SyncFollower)? = nil) throws {
        let directory = URL(fileURLWithPath: configuration.cacheDirectory)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let files = try CreativeFiles(directory: configuration.cacheDirectory)
        self.files = files
        let stateFile = StateFile(directory: directory)
        // What a kill in the middle of a write left: temporary files, never trusted, removed.
        files.removeLeftovers()
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [] where AtomicFile.isTemporary(name) {
            try? FileManager.default.removeItem(at: directory.appendingPathComponent(name))
        }
        let cell = StateCell()
        self.cell = cell
        let (saved, discarded) = stateFile.load()
        if discarded { logger.warning("discarded a state file that did not verify") }
        // Creatives are trusted only when their bytes hash to their name.
        var verified: [String: CreativeFacts] = [:]
        for (sha256, facts) in saved.creatives {
            if let bytes = try? files.read(sha256: sha256, offset: 0, length: facts.size + 1), bytes.count == facts.size,
               CreativeFiles.name(of: bytes) == sha256 {
                var facts = facts
                // A state saved before creatives' durations were kept reads them as 0: an animation's or a video's is
                // read from the bytes just read (a still GIF is read again at each start, and stays 0).
                if facts.durationMs == 0, facts.contentType == "image/gif" || facts.contentType == "video/mp4" {
                    facts.durationMs = CreativeInspector.durationMs(of: bytes, contentType: facts.contentType)
                }
                verified[sha256] = facts
            } else {
                logger.warning("discarded a creative that did not verify", metadata: ["sha256": "\(sha256)"])
            }
        }
        cell.update { _ in saved.with(creatives: verified) }
        if saved.isLoaded { logger.info("answering from the saved state", metadata: ["epoch": "\(saved.epoch)", "seq": "\(saved.seq)"]) }

        status = SyncStatus()
        cacheHealth = CacheHealth()
        cache = CreativeCache(files: files, budget: configuration.creativeCacheBytes)
        engine = SyncEngine(configuration: configuration, context: context, cell: cell, status: status, creativeFiles: files,
                            stateFile: stateFile, cache: cache, cacheHealth: cacheHealth, curve: curve, sealer: sealer, logger: logger,
                            clock: clock, follower: follower)
    }

    /// The sync engine, to run with the process's other services.
    public var service: any Service { engine }

    /// Bytes `offset ..< offset + length` of a verified creative the state holds, with its facts; `nil` when it holds
    /// none of that name (or its bytes are gone from the folder).
    public func read(sha256: String, offset: Int, length: Int) throws -> (facts: CreativeFacts, bytes: [UInt8])? {
        guard let facts = cell.state.creatives[sha256], offset <= facts.size,
              let bytes = try cache.read(sha256: sha256, size: facts.size, offset: offset, length: length) else { return nil }
        return (facts, bytes)
    }
}
