import DurableFiles
import Foundation
import LaunchAdAPI
import LaunchAdDomain
import Logging
import Locking
import ZeroMQ
import ZMQRPC

/// Fetches the creatives the edge's campaigns need and it does not hold, for the sync engine: in chunks over
/// campaignd's sync socket, each verified by its sha256, stored in the cache folder (or held in memory while the
/// folder refuses writes), then made known to the state.
final class CreativeDownloader: Sendable {
    let configuration: FollowingConfiguration
    let context: ZMQContext
    let cell: StateCell
    let creativeFiles: CreativeFiles
    let curve: CurveClientOptions?
    let logger: Logger
    let cache: CreativeCache
    let cacheHealth: CacheHealth
    /// Has the state saved once a creative is known.
    let persister: StatePersister
    private let downloading = Locked<Set<String>>([])
    /// Creatives downloaded while the cache folder refused writes that found no room in memory either: not asked
    /// for again until the folder takes writes or a pin is let go.
    let unheld = Locked<Set<String>>([])
    /// The downloads to start, by sha256: ``run()`` runs each as a child task.
    private let starts: AsyncStream<String>
    private let start: AsyncStream<String>.Continuation

    init(configuration: FollowingConfiguration, context: ZMQContext, cell: StateCell, creativeFiles: CreativeFiles,
         cache: CreativeCache, cacheHealth: CacheHealth, persister: StatePersister, curve: CurveClientOptions?, logger: Logger) {
        self.configuration = configuration
        self.context = context
        self.cell = cell
        self.creativeFiles = creativeFiles
        self.curve = curve
        self.logger = logger
        self.cache = cache
        self.cacheHealth = cacheHealth
        self.persister = persister
        (starts, start) = AsyncStream.makeStream(of: String.self)
    }

    /// Runs the downloads, each a child task of this one, until ``finish()`` (or cancellation); returns once the
    /// last of them has ended, so that none outlives the sync engine's `run()`.
    func run() async {
        await withDiscardingTaskGroup { group in
            for await sha256 in starts {
                group.addTask { await self.download(sha256) }
            }
        }
    }

    /// Starts no download any more: ``run()`` returns once those under way have ended.
    func finish() {
        start.finish()
    }

    /// Downloads under way at once, at most: each has a connection and a thread of its own, and a snapshot may name
    /// hundreds of creatives the edge does not hold.
    static let maxDownloads = 8

    /// Fetches the creatives the campaigns need and the edge does not hold (again, after a failure; also after a
    /// restart that discarded some), forced campaigns' first, up to ``maxDownloads`` at once; each download that
    /// ends well starts the next. Downloads already under way are not started twice.
    func fetchMissing(_ state: EdgeState) {
        if cacheHealth.refuses(.creatives) && !cache.hasPinned {
            // No creative in memory for a save to try: the folders the waiting ones go to are tried instead (a file
            // made and removed), so none is downloaded again before the disk takes it.
            let error: (any Error)?
            do {
                try creativeFiles.probe(for: unheld.withLock { $0 })
                error = nil
            } catch let failure {
                error = failure
            }
            if cacheHealth.record(error, for: .creatives) && cacheHealth.writable {
                logger.info("the cache folder takes writes again")
            }
        }
        let waiting = unheld.withLock { unheld in
            if !cacheHealth.refuses(.creatives) { unheld.removeAll() }
            return unheld
        }
        for sha256 in state.missingCreatives where !waiting.contains(sha256) {
            guard fetch(sha256) else { return }
        }
    }

    /// Starts the download of a creative unless it is under way. Returns `false` when no download may start now
    /// (``maxDownloads`` are under way, or the engine is stopping).
    private func fetch(_ sha256: String) -> Bool {
        let (started, room) = downloading.withLock { downloading -> (Bool, Bool) in
            guard !downloading.contains(sha256) else { return (false, true) }
            guard downloading.count < Self.maxDownloads else { return (false, false) }
            downloading.insert(sha256)
            return (true, true)
        }
        guard started else { return room }
        // ``run()`` starts it, unless the engine is stopping.
        guard case .enqueued = start.yield(sha256) else {
            _ = downloading.withLock { $0.remove(sha256) }
            return false
        }
        return true
    }

    /// One download, on a connection of its own; when it ends well, the next ones start.
    private func download(_ sha256: String) async {
        defer { _ = downloading.withLock { $0.remove(sha256) } }
        // Asked for as the engine stopped: left for the next start.
        guard !Task.isCancelled else { return }
        var clientConfiguration = RPCClientConfiguration(endpoint: configuration.upstreamSync)
        clientConfiguration.curve = curve
        clientConfiguration.name = "creatives"
        guard let client = try? RPCClient(context: context, configuration: clientConfiguration) else { return }
        let fetched = await download(sha256, client)
        await client.close()
        guard let state = fetched else { return }
        // The next one at once (a failed download waits for the next heartbeat's look instead, so a creative
        // that cannot be had is not asked for in a loop).
        _ = downloading.withLock { $0.remove(sha256) }
        fetchMissing(state)
    }

    /// Downloads a creative in chunks over `client`, verifies its sha256, stores it, and makes it known; returns the
    /// state that knows it, or `nil` when it could not be had (or held).
    private func download(_ sha256: String, _ client: RPCClient) async -> EdgeState? {
        do {
            var bytes: [UInt8] = []
            var facts: CreativeFacts?
            repeat {
                let chunk = try await client.call(SyncAPI.creative, CreativeChunkParams(sha256: sha256, offset: bytes.count, length: SyncAPI.maxChunk))
                guard let data = Data(base64Encoded: chunk.data), chunk.offset == bytes.count else { throw DownloadError.corrupt }
                bytes += data
                // Named as asked (the bytes are checked against that name below); a duration out of bounds from a
                // peer is kept within them rather than passed on to apps.
                facts = CreativeFacts(sha256: sha256, contentType: chunk.contentType, width: chunk.width, height: chunk.height, size: chunk.size,
                                      durationMs: min(max(chunk.durationMs ?? 0, 0), CreativeInspector.maxDurationMs))
                if data.isEmpty { break }
            } while bytes.count < (facts?.size ?? 0)
            guard let facts, bytes.count == facts.size, CreativeFiles.name(of: bytes) == sha256 else { throw DownloadError.corrupt }
            do {
                try creativeFiles.store(bytes, sha256: sha256)
            } catch {
                if cacheHealth.record(error, for: .creatives) {
                    logger.error("cannot write the cache folder; answering from memory", metadata: ["error": "\(error)"])
                }
                // Verified, but the disk refuses it: serve it from memory until a later save stores it, if there is room.
                guard cache.pin(bytes, sha256: sha256) else {
                    unheld.withLock { _ = $0.insert(sha256) }
                    logger.warning("no room in memory for a creative the cache folder refuses; it waits for the folder",
                                   metadata: ["sha256": "\(sha256)", "bytes": "\(bytes.count)", "held": "\(cache.pinnedBytes)"])
                    return nil
                }
            }
            let state = cell.update { $0.adding(facts) }
            persister.save()
            logger.info("fetched a creative", metadata: ["sha256": "\(sha256)", "bytes": "\(bytes.count)"])
            return state
        } catch is CancellationError {
            // The engine is stopping: asked for again at the next start.
            return nil
        } catch {
            logger.warning("could not fetch a creative; will retry", metadata: ["sha256": "\(sha256)", "error": "\(error)"])
            return nil
        }
    }

    enum DownloadError: Error { case corrupt }
}
