import JSONRPC
import LaunchAdDomain

/// The update stream of campaignd's PUB socket: its two notifications, each with its topic and params.
public enum UpdateStream {
    /// Each committed change, in `seq` order, published only after commit.
    public static let changed = StreamNotification<CampaignChanged>(topic: "campaign", method: "campaign.changed")
    /// Every second: the epoch and the last `seq` published, and campaignd's clock.
    public static let heartbeat = StreamNotification<Heartbeat>(topic: "heartbeat", method: "heartbeat")
    /// Every topic an edge subscribes to.
    public static let topics = [changed.topic, heartbeat.topic]
}

/// `campaign.changed`: one committed change, with the epoch it belongs to.
public struct CampaignChanged: Codable, Sendable, Hashable {
    public var epoch: String
    public var seq: Int64
    public var op: CampaignOperation
    public var id: Int64
    public var campaign: Campaign

    public init(epoch: String, change: Change) {
        self.epoch = epoch
        seq = change.seq
        op = change.op
        id = change.id
        campaign = change.campaign
    }

    /// The change, as an edge applies it (`at`: when the edge received it).
    public func change(at time: Timestamp) -> Change {
        Change(seq: seq, op: op, id: id, campaign: campaign, at: time)
    }
}

/// `heartbeat`: the epoch and the `seq` of the last change published, and campaignd's clock when it was sent.
public struct Heartbeat: Codable, Sendable, Hashable {
    public var epoch: String
    public var seq: Int64
    public var time: Timestamp

    public init(epoch: String, seq: Int64, time: Timestamp) {
        self.epoch = epoch
        self.seq = seq
        self.time = time
    }
}
