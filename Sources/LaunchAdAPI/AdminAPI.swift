import CampaignStore
import JSONRPC
import LaunchAdDomain

/// Application error codes (-32000 to -32099), the same on every socket.
public enum APIError {
    public static let campaignNotFound = RPCErrorInfo(code: -32001, message: "no such campaign")
    public static let invalidTransition = RPCErrorInfo(code: -32002, message: "the campaign's state does not allow this operation")
    public static let creativeRefused = RPCErrorInfo(code: -32003, message: "the creative was refused (type, size or content)")
    public static let creativeNotFound = RPCErrorInfo(code: -32004, message: "no such creative")
    public static let changesUnavailable = RPCErrorInfo(code: -32005, message: "those changes are no longer kept (or the epoch differs): take a snapshot")
}

/// `creative.upload` params: the bytes, base64, and their declared type (checked against the bytes).
public struct CreativeUploadParams: Codable, Sendable {
    public var contentType: String
    public var data: String
    public init(contentType: String, data: String) {
        self.contentType = contentType
        self.data = data
    }
}

/// A campaign and the sequence number of the change that produced it.
public struct CampaignChangeResult: Codable, Sendable {
    public var campaign: Campaign
    public var seq: Int64
    public init(campaign: Campaign, seq: Int64) {
        self.campaign = campaign
        self.seq = seq
    }
}

/// `campaign.update` params: the id and the fields to change.
public struct CampaignUpdateParams: Codable, Sendable {
    public var id: Int64
    public var name: String?
    public var app: String?
    public var startsAt: Timestamp?
    public var endsAt: Timestamp?
    public var priority: Int?
    public var weight: Int?
    public var forced: Bool?
    public var countdown: Int?
    public var skippable: Bool?
    public var skipAfter: Int?
    public var launchTypes: [LaunchType]?
    public var minBackgroundSeconds: Int?
    public var jump: Jump?
    public var creatives: [CreativeRef]?
    public var targeting: Targeting?
    public var frequencyCap: FrequencyCap?

    public init(id: Int64, fields: CampaignFields) {
        self.id = id
        name = fields.name; app = fields.app; startsAt = fields.startsAt; endsAt = fields.endsAt
        priority = fields.priority; weight = fields.weight; forced = fields.forced; countdown = fields.countdown
        skippable = fields.skippable; skipAfter = fields.skipAfter; launchTypes = fields.launchTypes
        minBackgroundSeconds = fields.minBackgroundSeconds; jump = fields.jump; creatives = fields.creatives
        targeting = fields.targeting; frequencyCap = fields.frequencyCap
    }

    public var fields: CampaignFields {
        CampaignFields(name: name, app: app, startsAt: startsAt, endsAt: endsAt, priority: priority, weight: weight,
                       forced: forced, countdown: countdown, skippable: skippable, skipAfter: skipAfter,
                       launchTypes: launchTypes, minBackgroundSeconds: minBackgroundSeconds, jump: jump,
                       creatives: creatives, targeting: targeting, frequencyCap: frequencyCap)
    }
}

public struct CampaignID: Codable, Sendable {
    public var id: Int64
    public init(id: Int64) { self.id = id }
}

public struct CampaignResult: Codable, Sendable {
    public var campaign: Campaign

    public init(campaign: Campaign) {
        self.campaign = campaign
    }
}

public struct CampaignListParams: Codable, Sendable {
    public var app: String?
    public var state: CampaignState?
    public init(app: String? = nil, state: CampaignState? = nil) {
        self.app = app
        self.state = state
    }
}

public struct CampaignListResult: Codable, Sendable {
    public var campaigns: [Campaign]

    public init(campaigns: [Campaign]) {
        self.campaigns = campaigns
    }
}

/// What campaignd knows of one edge.
public struct EdgeInfo: Codable, Sendable, Hashable {
    public var edgeId: String
    public var region: String
    public var epoch: String
    public var appliedSeq: Int64
    public var lastSeen: Timestamp
    public var stale: Bool

    public init(edgeId: String, region: String, epoch: String, appliedSeq: Int64, lastSeen: Timestamp, stale: Bool) {
        self.edgeId = edgeId
        self.region = region
        self.epoch = epoch
        self.appliedSeq = appliedSeq
        self.lastSeen = lastSeen
        self.stale = stale
    }
}

public struct EdgeListResult: Codable, Sendable {
    public var edges: [EdgeInfo]
    /// The service's own sequence number, to compare with each edge's.
    public var seq: Int64

    public init(edges: [EdgeInfo], seq: Int64) {
        self.edges = edges
        self.seq = seq
    }
}

public struct CampaignStatsParams: Codable, Sendable {
    public var id: Int64?
    public init(id: Int64? = nil) { self.id = id }
}

public struct CampaignStatsResult: Codable, Sendable {
    public var stats: [CampaignStats]

    public init(stats: [CampaignStats]) {
        self.stats = stats
    }
}

/// The admin socket's methods.
public enum AdminAPI {
    public static let info = OpenRPCInfo(title: "campaignd admin", version: "1.0.0",
                                         description: "Operators' API of the campaign service (adctl).")
    static let campaignErrors = [APIError.campaignNotFound, APIError.invalidTransition]

    public static let creativeUpload = RPCMethod<CreativeUploadParams, CreativeInfo>(
        "creative.upload", summary: "Store a creative (base64) by the sha256 of its bytes; the type is checked against the bytes and the pixel size read from them.",
        idempotent: true, errors: [APIError.creativeRefused])
    public static let campaignCreate = RPCMethod<CampaignFields, CampaignChangeResult>(
        "campaign.create", summary: "Create a campaign.")
    public static let campaignUpdate = RPCMethod<CampaignUpdateParams, CampaignChangeResult>(
        "campaign.update", summary: "Change fields of a campaign.", errors: campaignErrors)
    public static let campaignGet = RPCMethod<CampaignID, CampaignResult>(
        "campaign.get", summary: "One campaign.", idempotent: true, errors: [APIError.campaignNotFound])
    public static let campaignList = RPCMethod<CampaignListParams, CampaignListResult>(
        "campaign.list", summary: "Campaigns, by app and state.", idempotent: true)
    public static let campaignForce = operation("campaign.force", "Make a campaign answer first, on every edge, from the next query.")
    public static let campaignUnforce = operation("campaign.unforce", "Stop forcing a campaign.")
    public static let campaignPause = operation("campaign.pause", "Hold a campaign.")
    public static let campaignResume = operation("campaign.resume", "Resume a paused campaign.")
    public static let campaignExpire = operation("campaign.expire", "Take a campaign down at once, for good.")
    public static let campaignDelete = operation("campaign.delete", "Delete a campaign (edges tell clients to drop it).")
    public static let edgeList = RPCMethod<NoParams, EdgeListResult>(
        "edge.list", summary: "Every edge, with the sequence number it applied and when it was last seen.", idempotent: true)
    public static let campaignStats = RPCMethod<CampaignStatsParams, CampaignStatsResult>(
        "campaign.stats", summary: "Impressions, clicks and skips reported by edges.", idempotent: true, errors: [APIError.campaignNotFound])

    static func operation(_ name: String, _ summary: String) -> RPCMethod<CampaignID, CampaignChangeResult> {
        RPCMethod(name, summary: summary, errors: campaignErrors)
    }

    /// The operation each operation method applies.
    public static let operations: [(RPCMethod<CampaignID, CampaignChangeResult>, CampaignOperation)] = [
        (campaignForce, .forced), (campaignUnforce, .unforced), (campaignPause, .paused),
        (campaignResume, .resumed), (campaignExpire, .expired), (campaignDelete, .deleted),
    ]
}
