import CampaignStore
import JSONRPC
import LaunchAdDomain

/// Application error codes (-32000 to -32099), the same on every socket.
public enum APIError {
    public static let campaignNotFound = RPCErrorInfo(code: -32001, message: "no such campaign", name: "CampaignNotFound")
    public static let invalidTransition = RPCErrorInfo(code: -32002, message: "the campaign's state does not allow this operation",
                                                       name: "InvalidTransition")
    public static let creativeRefused = RPCErrorInfo(code: -32003, message: "the creative was refused (type, size or content)",
                                                     name: "CreativeRefused")
    public static let creativeNotFound = RPCErrorInfo(code: -32004, message: "no such creative", name: "CreativeNotFound")
    public static let changesUnavailable = RPCErrorInfo(code: -32005, message: "those changes are no longer kept (or the epoch differs): take a snapshot",
                                                        name: "ChangesUnavailable")

    public static let busy = RPCErrorInfo(code: -32006, message: "the edge holds too many large replies that clients have not read yet: retry later",
                                          name: "Busy")

    /// Every application error code.
    public static let all = [campaignNotFound, invalidTransition, creativeRefused, creativeNotFound, changesUnavailable, busy]
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
                                         description: "Operators' API of the campaign service (adctl). Every write answers once it is durable; each change gets the next sequence number and is published on the update stream after it commits.")
    static let campaignErrors = [APIError.campaignNotFound, APIError.invalidTransition]
    typealias X = APIExamples

    public static let creativeUpload = RPCMethod<CreativeUploadParams, CreativeInfo>(
        "creative.upload", summary: "Store a creative (base64) by the sha256 of its bytes; the type is checked against the bytes and the pixel size read from them.",
        idempotent: true, errors: [APIError.creativeRefused],
        examples: [RPCExample("a PNG", params: CreativeUploadParams(contentType: "image/png", data: X.creativeBase64), result: X.creative)])
    public static let campaignCreate = RPCMethod<CampaignFields, CampaignChangeResult>(
        "campaign.create", summary: "Create a campaign.",
        description: "Every field is validated; a bad one is refused with -32602 naming it. Creatives must be uploaded first.",
        examples: [RPCExample("every field", params: X.fields, result: CampaignChangeResult(campaign: X.campaign, seq: 17))])
    public static let campaignUpdate = RPCMethod<CampaignUpdateParams, CampaignChangeResult>(
        "campaign.update", summary: "Change fields of a campaign.",
        description: "Fields left out keep their value; the campaign is validated as a whole and its version grows. Expired and deleted campaigns cannot change.",
        errors: campaignErrors,
        examples: [RPCExample("a later end and a higher priority",
                              params: CampaignUpdateParams(id: 42, fields: CampaignFields(endsAt: Timestamp(rfc3339: "2026-11-13T16:00:00Z")!, priority: 90)),
                              result: CampaignChangeResult(campaign: X.campaign { $0.endsAt = Timestamp(rfc3339: "2026-11-13T16:00:00Z")!; $0.priority = 90 }, seq: 18))])
    public static let campaignGet = RPCMethod<CampaignID, CampaignResult>(
        "campaign.get", summary: "One campaign.", idempotent: true, errors: [APIError.campaignNotFound],
        examples: [RPCExample("by id", params: CampaignID(id: 42), result: CampaignResult(campaign: X.campaign))])
    public static let campaignList = RPCMethod<CampaignListParams, CampaignListResult>(
        "campaign.list", summary: "Campaigns, by app and state.", idempotent: true,
        examples: [RPCExample("live campaigns of an app", params: CampaignListParams(app: "com.example.news", state: .live),
                              result: CampaignListResult(campaigns: [X.plainCampaign]))])
    public static let campaignForce = operation("campaign.force", "Make a campaign answer first, on every edge, from the next query.") { $0.forced = true }
    public static let campaignUnforce = operation("campaign.unforce", "Stop forcing a campaign.") { $0.forced = false }
    public static let campaignPause = operation("campaign.pause", "Hold a campaign.") { $0.state = .paused }
    public static let campaignResume = operation("campaign.resume", "Resume a paused campaign.") { $0.state = .scheduled }
    public static let campaignExpire = operation("campaign.expire", "Take a campaign down at once, for good.") { $0.state = .expired }
    public static let campaignDelete = operation("campaign.delete", "Delete a campaign (edges tell clients to drop it).") { $0.state = .deleted }
    public static let edgeList = RPCMethod<NoParams, EdgeListResult>(
        "edge.list", summary: "Every edge, with the sequence number it applied and when it was last seen.", idempotent: true,
        examples: [RPCExample("two edges, one behind", params: NoParams(), result: EdgeListResult(edges: [
            EdgeInfo(edgeId: "edge-sh-1", region: "cn-east", epoch: X.epoch, appliedSeq: 18, lastSeen: X.updated, stale: false),
            EdgeInfo(edgeId: "edge-sz-1", region: "cn-south", epoch: X.epoch, appliedSeq: 12, lastSeen: X.created, stale: true),
        ], seq: 18))])
    public static let campaignStats = RPCMethod<CampaignStatsParams, CampaignStatsResult>(
        "campaign.stats", summary: "Impressions, clicks and skips reported by edges.", idempotent: true, errors: [APIError.campaignNotFound],
        examples: [RPCExample("one campaign", params: CampaignStatsParams(id: 42),
                              result: CampaignStatsResult(stats: [CampaignStats(id: 42, impressions: 15230, clicks: 412, skips: 3120)]))])

    static func operation(_ name: String, _ summary: String, _ change: (inout Campaign) -> Void) -> RPCMethod<CampaignID, CampaignChangeResult> {
        RPCMethod(name, summary: summary, errors: campaignErrors,
                  examples: [RPCExample("campaign 42", params: CampaignID(id: 42),
                                        result: CampaignChangeResult(campaign: X.campaign(change), seq: 18))])
    }

    /// The operation each operation method applies.
    public static let operations: [(RPCMethod<CampaignID, CampaignChangeResult>, CampaignOperation)] = [
        (campaignForce, .forced), (campaignUnforce, .unforced), (campaignPause, .paused),
        (campaignResume, .resumed), (campaignExpire, .expired), (campaignDelete, .deleted),
    ]

    /// Every method of the admin socket, as the OpenRPC document lists them.
    public static let methods: [MethodInfo] = [
        creativeUpload.info, campaignCreate.info, campaignUpdate.info, campaignGet.info, campaignList.info,
        edgeList.info, campaignStats.info,
    ] + operations.map { $0.0.info }
}
