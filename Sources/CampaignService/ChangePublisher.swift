import CampaignStore
import LaunchAdAPI
import LaunchAdDomain
import Locking
import ZMQRPC

/// Publishes each committed change on the update stream, in `seq` order, and the heartbeats: both under one lock,
/// so a heartbeat never carries a `seq` behind a change already sent, nor ahead of one not yet sent.
final class ChangePublisher: Sendable {
    let publisher: Publisher
    let epoch: String
    /// The `seq` of the last change handed to the publisher.
    private let published: Locked<Int64>
    /// Raised before each change goes out, so that an edge's acknowledgement of it is never ahead of it.
    private let ceiling: SeqCeiling?

    init(publisher: Publisher, epoch: String, seq: Int64, ceiling: SeqCeiling? = nil) {
        self.publisher = publisher
        self.epoch = epoch
        published = Locked(seq)
        self.ceiling = ceiling
    }

    /// Sets the `seq` the heartbeats carry when this process starts publishing (at start, or on taking over).
    func resume(at seq: Int64) {
        published.withLock { $0 = seq }
    }

    func publish(_ changes: [Change]) {
        published.withLock { published in
            for change in changes {
                ceiling?.raise(to: change.seq)
                publisher.publish(UpdateStream.changed, CampaignChanged(epoch: epoch, change: change))
                published = max(published, change.seq)
            }
        }
    }

    /// Publishes a heartbeat; returns the seq it carried.
    @discardableResult
    func heartbeat(time: Timestamp) -> Int64 {
        published.withLock { published in
            publisher.publish(UpdateStream.heartbeat, Heartbeat(epoch: epoch, seq: published, time: time))
            return published
        }
    }
}
