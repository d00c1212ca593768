import CampaignStore
import JSONRPC
import LaunchAdDomain

public struct ChangesParams: Codable, Sendable {
    public var epoch: String
    public var since: Int64
    public var limit: Int?
    public init(epoch: String, since: Int64, limit: Int? = nil) {
        self.epoch = epoch
        self.since = since
        self.limit = limit
    }
}

/// `sync.snapshot` params. Without either member the answer is the whole snapshot at once (what edges that do not
/// page ask for); with either, it is one page.
public struct SnapshotParams: Codable, Sendable, Hashable {
    /// The page starts after this campaign id (0, or absent, for the first page).
    public var after: Int64?
    /// The most campaigns on the page.
    public var limit: Int?

    public init(after: Int64? = nil, limit: Int? = nil) {
        self.after = after
        self.limit = limit
    }

    public var isPaged: Bool { after != nil || limit != nil }
}

public struct ChangesResult: Codable, Sendable {
    public var epoch: String
    /// The service's sequence number now (the changes may stop short of it when limited).
    public var seq: Int64
    public var changes: [Change]

    public init(epoch: String, seq: Int64, changes: [Change]) {
        self.epoch = epoch
        self.seq = seq
        self.changes = changes
    }
}

public struct CreativeChunkParams: Codable, Sendable {
    public var sha256: String
    public var offset: Int?
    public var length: Int?
    public init(sha256: String, offset: Int? = nil, length: Int? = nil) {
        self.sha256 = sha256
        self.offset = offset
        self.length = length
    }
}

/// A piece of a creative's bytes (base64), at most 1 MiB.
public struct CreativeChunk: Codable, Sendable {
    public var sha256: String
    public var contentType: String
    public var width: Int
    public var height: Int
    public var size: Int
    public var offset: Int
    public var data: String

    public init(sha256: String, contentType: String, width: Int, height: Int, size: Int, offset: Int, data: String) {
        self.sha256 = sha256
        self.contentType = contentType
        self.width = width
        self.height = height
        self.size = size
        self.offset = offset
        self.data = data
    }
}

public struct EdgeAck: Codable, Sendable {
    public var edgeId: String
    public var region: String
    public var epoch: String
    public var appliedSeq: Int64
    public init(edgeId: String, region: String, epoch: String, appliedSeq: Int64) {
        self.edgeId = edgeId
        self.region = region
        self.epoch = epoch
        self.appliedSeq = appliedSeq
    }
}

public struct EdgeAckResult: Codable, Sendable {
    public var seq: Int64

    public init(seq: Int64) {
        self.seq = seq
    }
}

/// The sync socket's methods, for edges.
public enum SyncAPI {
    public static let info = OpenRPCInfo(title: "campaignd sync", version: "1.0.0",
                                         description: "Edges' API of the campaign service: snapshots, changes, creative bytes, acknowledgements and counts.")
    public static let maxChunk = 1 << 20
    typealias X = APIExamples

    /// The most bytes of campaigns' JSON on a snapshot page or a page of changes (one campaign or change may pass it
    /// alone): well within what an edge takes in one reply.
    public static let maxPageBytes = 4 << 20
    /// The most campaigns on a snapshot page, and the page size when only `after` is given.
    public static let maxSnapshotPage = 10_000
    public static let defaultSnapshotPage = 1000

    public static let snapshot = RPCMethod<SnapshotParams, Snapshot>(
        "sync.snapshot", summary: "Every campaign at one sequence number, whole or a page at a time.",
        description: """
            An edge subscribes to the update stream first, then takes a snapshot, and drops the updates it already holds \
            (seq <= the snapshot's). Without params the answer holds every campaign. With `limit` or `after` it is one page: \
            the campaigns after id `after`, in order of id, at most `limit` and about 4 MiB of them, with `next` set when more \
            follow. Each page is read at its own `seq`: an edge joins the pages, then applies the change log from the first \
            page's `seq` (sync.changes), which makes every campaign current whichever page it came on.
            """,
        idempotent: true,
        examples: [RPCExample("two campaigns", params: SnapshotParams(), result: Snapshot(epoch: X.epoch, seq: 17, campaigns: [X.plainCampaign, X.campaign])),
                   RPCExample("a first page of one campaign", params: SnapshotParams(limit: 1),
                              result: Snapshot(epoch: X.epoch, seq: 17, campaigns: [X.plainCampaign], next: X.plainCampaign.id))])
    public static let changes = RPCMethod<ChangesParams, ChangesResult>(
        "sync.changes", summary: "The changes after a sequence number, while the log keeps them.",
        description: "What an edge asks for when it sees a gap in the update stream. When the log no longer keeps them, or the epoch differs, the answer is -32005 and the edge takes a snapshot.",
        idempotent: true,
        errors: [APIError.changesUnavailable],
        examples: [RPCExample("one change after 17", params: ChangesParams(epoch: X.epoch, since: 17, limit: 100),
                              result: ChangesResult(epoch: X.epoch, seq: 18, changes: [
                                  Change(seq: 18, op: .forced, id: 42, campaign: X.campaign { $0.forced = true }, at: X.updated,
                                         actor: "rq:rA]zI4Z)E>o1FX/5Exsr7T8G)y8y:y/f#rQ1[S"),
                              ]))])
    public static let creative = RPCMethod<CreativeChunkParams, CreativeChunk>(
        "creative.get", summary: "Bytes of a stored creative, at most 1 MiB a call.", idempotent: true,
        errors: [APIError.creativeNotFound],
        examples: [RPCExample("a whole small creative", params: CreativeChunkParams(sha256: X.creative.sha256),
                              result: CreativeChunk(sha256: X.creative.sha256, contentType: "image/png", width: 1080, height: 1920,
                                                    size: 41, offset: 0, data: X.creativeBase64))])
    public static let ack = RPCMethod<EdgeAck, EdgeAckResult>(
        "edge.ack", summary: "An edge acknowledges the sequence number it applied.", idempotent: true,
        examples: [RPCExample("applied 18", params: EdgeAck(edgeId: "edge-sh-1", region: "cn-east", epoch: X.epoch, appliedSeq: 18),
                              result: EdgeAckResult(seq: 18))])
}

/// The update stream's topics and notifications.
public enum UpdateStream {
    public static let campaignTopic = "campaign"
    public static let heartbeatTopic = "heartbeat"
    public static let changed = "campaign.changed"
    public static let heartbeat = "heartbeat"
}
