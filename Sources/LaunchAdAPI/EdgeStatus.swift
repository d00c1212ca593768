import JSONRPC
import LaunchAdDomain

/// `edge.status`: what the edge answers from and how well it is in touch.
public struct EdgeStatus: Codable, Sendable {
    public var edgeId: String
    public var region: String
    public var epoch: String
    public var seq: Int64
    public var loaded: Bool
    public var stale: Bool
    public var skewSeconds: Double
    public var campaigns: Int
    public var creatives: Int
    public var resyncs: Int
    public var gaps: Int
    /// `false` while the edge cannot write its cache folder (a full or read-only disk): it answers from memory.
    public var cacheWritable: Bool
    /// When, by the edge's clock, its state reached `seq` (a change applied, a catch-up or a snapshot); `nil` while
    /// it answers from the state it loaded at start.
    public var appliedAt: Timestamp?

    public init(edgeId: String, region: String, epoch: String, seq: Int64, loaded: Bool, stale: Bool, skewSeconds: Double,
                campaigns: Int, creatives: Int, resyncs: Int, gaps: Int, cacheWritable: Bool = true,
                appliedAt: Timestamp? = nil) {
        self.edgeId = edgeId
        self.region = region
        self.epoch = epoch
        self.seq = seq
        self.loaded = loaded
        self.stale = stale
        self.skewSeconds = skewSeconds
        self.campaigns = campaigns
        self.creatives = creatives
        self.resyncs = resyncs
        self.gaps = gaps
        self.cacheWritable = cacheWritable
        self.appliedAt = appliedAt
    }
}
