import CampaignStore
import Locking
import LaunchAdAPI
import Logging

/// The highest `seq` this campaignd knows its store reached: no edge can have applied more, so an acknowledgement
/// beyond it is refused. Read without waiting on every acknowledgement (they are handled inline), so it is kept
/// here: raised before each change is published and each time the sync socket serves changes or a snapshot; an
/// acknowledgement beyond it has the store read again (another campaignd sharing the database may have written
/// since), once at a time, so that the edge's next acknowledgement is taken.
final class SeqCeiling: Sendable {
    private let known: Locked<Int64>
    private let refreshing = Locked(false)
    private let store: any Store
    private let logger: Logger

    init(store: any Store, seq: Int64, logger: Logger) {
        self.store = store
        known = Locked(seq)
        self.logger = logger
    }

    /// The highest seq known now.
    var seq: Int64 { known.withLock { $0 } }

    /// Records that the store reached `seq`.
    func raise(to seq: Int64) {
        known.withLock { $0 = max($0, seq) }
    }

    /// The seq to check `appliedSeq` against: the one known, after starting a read of the store's when
    /// `appliedSeq` is beyond it.
    func ceiling(for appliedSeq: Int64) -> Int64 {
        let seq = self.seq
        if appliedSeq > seq { refresh() }
        return seq
    }

    private func refresh() {
        guard refreshing.withLock({ refreshing in
            defer { refreshing = true }
            return !refreshing
        }) else { return }
        Task {
            do {
                raise(to: try await store.currentSeq())
            } catch {
                logger.debug("could not read the store's seq", metadata: ["error": "\(error)"])
            }
            refreshing.withLock { $0 = false }
        }
    }
}

extension SeqCeiling {
    /// `snapshot`, after recording its seq: what an edge applies from it, it may acknowledge.
    func raised(by snapshot: Snapshot) -> Snapshot {
        raise(to: snapshot.seq)
        return snapshot
    }
}
