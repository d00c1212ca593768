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
    /// The most bytes a message of the stream takes: a change carries its campaign whole, and the campaign rules bound
    /// a campaign (1000 regions and locales, 64 creatives, 100 test devices, a 2 KiB jump...) to well under it. A
    /// publisher bounds what it queues for a subscriber in bytes by allowing that many bytes' worth of such messages.
    public static let largestMessage = 256 * 1024
}

/// `campaign.changed`: one committed change, with the epoch it belongs to. Every edge and relay reads each one, so it
/// reads itself straight from the tape (``init(json:)``).
public struct CampaignChanged: Codable, Sendable, Hashable, JSONReadable {
    public var epoch: String
    public var seq: Int64
    public var op: CampaignOperation
    public var id: Int64
    public var campaign: Campaign

    /// The members, declared once: the `Codable` conformance's keys and the reader's slots.
    public enum CodingKeys: Int, JSONFieldKey { case epoch, seq, op, id, campaign }
    static let fields = JSONFields(CodingKeys.self)

    public init(epoch: String, change: Change) {
        self.epoch = epoch
        seq = change.seq
        op = change.op
        id = change.id
        campaign = change.campaign
    }

    /// What the `Codable` conformance gives for the same JSON, without its generic machinery.
    public init(json: JSONReader) throws {
        let object = try json.object(Self.fields)
        epoch = try object.string(.epoch)
        seq = try object.require(.seq).integer(Int64.self)
        op = try object.require(.op).enumeration(CampaignOperation.self)
        id = try object.require(.id).integer(Int64.self)
        campaign = try Campaign(json: object.require(.campaign))
    }

    /// The change, as an edge applies it (`at`: when the edge received it).
    public func change(at time: Timestamp) -> Change {
        Change(seq: seq, op: op, id: id, campaign: campaign, at: time)
    }
}

/// Written directly, as its `Codable` conformance writes it: campaignd and every relay publish each change, and the
/// generic encoding made a tree of values first and then its text.
extension CampaignChanged: JSONWritable {
    public func write(json: inout JSONWriter) {
        json.writeObject { object in
            object.field("epoch", epoch)
            object.field("seq", Int(seq))
            object.field("op", op.rawValue)
            object.field("id", Int(id))
            object.field("campaign") { campaign.write(json: &$0) }
        }
    }
}

/// `heartbeat`: the epoch and the `seq` of the last change published, and campaignd's clock when it was sent.
public struct Heartbeat: Codable, Sendable, Hashable, JSONReadable {
    public var epoch: String
    public var seq: Int64
    public var time: Timestamp

    /// The members, declared once: the `Codable` conformance's keys and the reader's slots.
    public enum CodingKeys: Int, JSONFieldKey { case epoch, seq, time }
    static let fields = JSONFields(CodingKeys.self)

    /// What the `Codable` conformance gives for the same JSON, without its generic machinery.
    public init(json: JSONReader) throws {
        let object = try json.object(Self.fields)
        epoch = try object.string(.epoch)
        seq = try object.require(.seq).integer(Int64.self)
        time = try object.require(.time).timestamp()
    }

    public init(epoch: String, seq: Int64, time: Timestamp) {
        self.epoch = epoch
        self.seq = seq
        self.time = time
    }
}

/// Written directly, as its `Codable` conformance writes it: published every second by campaignd and each relay.
extension Heartbeat: JSONWritable {
    public func write(json: inout JSONWriter) {
        json.writeObject { object in
            object.field("epoch", epoch)
            object.field("seq", Int(seq))
            object.field("time") { $0.write(timestamp: time) }
        }
    }
}
