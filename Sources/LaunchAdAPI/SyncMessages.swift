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
