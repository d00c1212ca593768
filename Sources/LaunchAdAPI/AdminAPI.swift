import JSONRPC
import LaunchAdDomain

/// The admin socket's methods.
public enum AdminAPI {
    public static let info = OpenRPCInfo(title: "campaignd admin", version: "1.0.0",
                                         description: "Operators' API of the campaign service (adctl). Every write answers once it is durable; each change gets the next sequence number and is published on the update stream after it commits. A call whose response makes its reply 64 KiB or more (a long list, a creative's bytes) is answered Busy (-32006) while campaignd holds too many such replies that peers have not read.")
    static let campaignErrors = [APIError.campaignNotFound, APIError.invalidTransition]
    /// What campaign.create and campaign.update say of the markets' rules.
    static let marketRefusal = "A campaign that breaks rules of its app's market (app.set; see the Market schema for the table) is refused with -32602 naming every broken rule: data.field and data.reason are the first one's field and rule, data.market the market, data.app the app and data.breaches each broken rule (field, market, rule, source)."

    public static let creativeUpload = RPCMethod<CreativeUploadParams, CreativeFacts>(
        "creative.upload", summary: "Store a creative (base64) by the sha256 of its bytes; the type is checked against the bytes and the pixel size read from them.",
        idempotent: true, errors: [APIError.creativeRefused],
        examples: [RPCExample("a PNG", params: CreativeUploadParams(contentType: "image/png", data: APIExamples.creativeBase64), result: APIExamples.creative)])
    public static let campaignCreate = RPCMethod<CampaignFields, CampaignChangeResult>(
        "campaign.create", summary: "Create a campaign.",
        description: "Every field is validated; a bad one is refused with -32602 naming it. Creatives must be uploaded first. \(marketRefusal)",
        examples: [RPCExample("every field", params: APIExamples.fields, result: CampaignChangeResult(campaign: APIExamples.campaign, seq: 17))])
    public static let campaignUpdate = RPCMethod<CampaignUpdateParams, CampaignChangeResult>(
        "campaign.update", summary: "Change fields of a campaign.",
        description: "Fields left out keep their value; the campaign is validated as a whole and its version grows. Expired and deleted campaigns cannot change. \(marketRefusal) The merged campaign is checked, so an update of any field of a campaign that breaks them is refused until it keeps them.",
        errors: campaignErrors,
        examples: [RPCExample("a later end and a higher priority",
                              params: CampaignUpdateParams(id: 42, fields: CampaignFields(endsAt: Timestamp(rfc3339: "2026-11-13T16:00:00Z")!, priority: 90)),
                              result: CampaignChangeResult(campaign: APIExamples.campaign { $0.endsAt = Timestamp(rfc3339: "2026-11-13T16:00:00Z")!; $0.priority = 90 }, seq: 18))])
    public static let campaignGet = RPCMethod<CampaignID, CampaignResult>(
        "campaign.get", summary: "One campaign.", idempotent: true, errors: [APIError.campaignNotFound],
        examples: [RPCExample("by id", params: CampaignID(id: 42), result: CampaignResult(campaign: APIExamples.campaign))])
    public static let campaignList = RPCMethod<CampaignListParams, CampaignListResult>(
        "campaign.list", summary: "Campaigns, by app and state.", idempotent: true,
        examples: [RPCExample("live campaigns of an app", params: CampaignListParams(app: "com.example.news", state: .live),
                              result: CampaignListResult(campaigns: [APIExamples.plainCampaign]))])
    public static let campaignForce = operation("campaign.force", "Make a campaign answer first, on every edge, from the next query.",
                                                description: "The campaign is checked against its app's market's rules as an update is. \(marketRefusal)") { $0.forced = true }
    public static let campaignUnforce = operation("campaign.unforce", "Stop forcing a campaign.") { $0.forced = false }
    public static let campaignPause = operation("campaign.pause", "Hold a campaign.") { $0.state = .paused }
    public static let campaignResume = operation("campaign.resume", "Resume a paused campaign.",
                                                 description: "The campaign is checked against its app's market's rules as an update is. \(marketRefusal)") { $0.state = .scheduled }
    public static let campaignExpire = operation("campaign.expire", "Take a campaign down at once, for good.") { $0.state = .expired }
    public static let campaignDelete = operation("campaign.delete", "Delete a campaign (edges tell clients to drop it).") { $0.state = .deleted }
    public static let edgeList = RPCMethod<NoParams, EdgeListResult>(
        "edge.list", summary: "Every edge, with the sequence number it applied and when it was last seen.", idempotent: true,
        examples: [RPCExample("two edges, one behind", params: NoParams(), result: EdgeListResult(edges: [
            EdgeInfo(edgeId: "edge-sh-1", region: "cn-east", epoch: APIExamples.epoch, appliedSeq: 18, lastSeen: APIExamples.updated, stale: false),
            EdgeInfo(edgeId: "edge-sz-1", region: "cn-south", epoch: APIExamples.epoch, appliedSeq: 12, lastSeen: APIExamples.created, stale: true),
        ], seq: 18, epoch: APIExamples.epoch))])
    public static let campaignStats = RPCMethod<CampaignStatsParams, CampaignStatsResult>(
        "campaign.stats", summary: "Impressions, clicks, skips and reports (launch.report kind reported) counted by edges: totals, and over time by hour or day.",
        description: "Totals always; with any of from, to, by or split, the series too: by campaign, bucket (UTC), then creative and the edge's region when split. Buckets with no event are left out. campaignd keeps hourly counts for --stats-retention (90 days by default). A total's reasons are its reports by reason over the hours kept.",
        idempotent: true, errors: [APIError.campaignNotFound],
        examples: [RPCExample("one campaign", params: CampaignStatsParams(id: 42),
                              result: CampaignStatsResult(stats: [CampaignStats(id: 42, impressions: 15230, clicks: 412, skips: 3120, reports: 3,
                                                                                 reasons: ReportReasons(misleading: 2, other: 1))])),
                   RPCExample("by hour, split by creative", params: CampaignStatsParams(id: 42, from: Timestamp(rfc3339: "2026-11-11T00:00:00Z")!,
                                                                                       to: Timestamp(rfc3339: "2026-11-11T02:00:00Z")!, by: .hour, split: [.creative]),
                              result: CampaignStatsResult(stats: [CampaignStats(id: 42, impressions: 15230, clicks: 412, skips: 3120, reports: 3,
                                                                                 reasons: ReportReasons(misleading: 2, other: 1))], series: [
                                StatsPoint(id: 42, at: Timestamp(rfc3339: "2026-11-11T00:00:00Z")!, creative: APIExamples.creative.sha256, impressions: 800, clicks: 20, skips: 160, reports: 1),
                                StatsPoint(id: 42, at: Timestamp(rfc3339: "2026-11-11T01:00:00Z")!, creative: APIExamples.creative.sha256, impressions: 650, clicks: 18, skips: 122, reports: 0),
                              ]))])

    public static let appStats = RPCMethod<AppStatsParams, AppStatsResult>(
        "app.stats", summary: "An app's funnel from its launches' reports: requests, fills, shows, timeouts, failures, fill rate and show rate, in total and by hour or day.",
        description: "Counted from launch.report's request, noAd, timeout and failed reports (by the app they name) and the impressions of the app's campaigns, as edges ship them. fills = requests - noAd - timeouts (never below 0); fillRate = fills / requests; showRate = shows / fills; a rate is null when its denominator is 0. The span is from (taken back to its bucket's start) to to, not included: a day by hour, 30 days by day by default; at most 31 days by hour, 366 by day. Buckets with no count are left out. campaignd keeps these hourly counts for --stats-retention (90 days by default). An app nothing was reported for answers zeros.",
        idempotent: true,
        examples: [RPCExample("one app by hour", params: AppStatsParams(app: "com.example.shop", from: Timestamp(rfc3339: "2026-11-11T00:00:00Z")!,
                                                                          to: Timestamp(rfc3339: "2026-11-11T02:00:00Z")!, by: .hour),
                              result: AppStatsResult(app: "com.example.shop", from: Timestamp(rfc3339: "2026-11-11T00:00:00Z")!,
                                                     to: Timestamp(rfc3339: "2026-11-11T02:00:00Z")!, by: .hour,
                                                     totals: AppFunnel(requests: 2000, fills: 1700, shows: 1530, timeouts: 120, failures: 14, fillRate: 0.85, showRate: 0.9),
                                                     series: [
                                                        AppFunnel(at: Timestamp(rfc3339: "2026-11-11T00:00:00Z")!, requests: 1200, fills: 1020, shows: 918,
                                                                  timeouts: 80, failures: 9, fillRate: 0.85, showRate: 0.9),
                                                        AppFunnel(at: Timestamp(rfc3339: "2026-11-11T01:00:00Z")!, requests: 800, fills: 680, shows: 612,
                                                                  timeouts: 40, failures: 5, fillRate: 0.85, showRate: 0.9),
                                                     ]))])

    public static let changeList = RPCMethod<ChangeListParams, ChangeListResult>(
        "change.list", summary: "The change log: who changed which campaign, what and when, a page at a time.",
        description: "In sequence order, after `after`; `limit` above \(ChangeListParams.maxLimit) is refused. `next` is set when the page is full. The fields are those whose value the change altered, from the campaign stored before and after it.",
        idempotent: true, errors: [APIError.campaignNotFound],
        examples: [RPCExample("one campaign's changes", params: ChangeListParams(id: 42, after: 16, limit: 2),
                              result: ChangeListResult(changes: [
                                ChangeEntry(seq: 17, id: 42, op: .created, actor: "local", at: APIExamples.created, fields: [], version: 1),
                                ChangeEntry(seq: 18, id: 42, op: .updated, actor: "alice", at: APIExamples.updated, fields: ["endsAt", "priority"], version: 2),
                              ], next: 18))])

    public static let launchExplain = RPCMethod<LaunchQueryParams, LaunchExplainResult>(
        "launch.explain", summary: "What an edge holding campaignd's state would answer a launch query now, and why for every campaign of the app.",
        description: "The params are launch.query's. The edge's own decision engine runs on campaignd's campaigns and creatives, for a device the edge has no history of (no impressions: caps and the rotation start fresh). Each campaign is served, lost-draw, lower-priority, not-live-yet, ended, paused, expired, targeting (with the field), test-audience, capped or no-creative.",
        idempotent: true,
        examples: [RPCExample("one served, one paused, one left out by platform", params: LaunchQueryParams(app: "com.example.shop", platform: "ios", appVersion: "6.1.0",
                                                                                             region: "cn-east", deviceId: "d41d8cd98f00b204", screen: APIExamples.screen),
                              result: LaunchExplainResult(hasAd: true, id: 42, sha256: APIExamples.creative.sha256, revoked: [7], campaigns: [
                                ExplainedCampaign(CampaignExplanation(campaign: APIExamples.campaign { $0.id = 7; $0.name = "Spring sale"; $0.state = .paused }, outcome: .paused)),
                                ExplainedCampaign(CampaignExplanation(campaign: APIExamples.campaign { $0.state = .live }, outcome: .served)),
                                ExplainedCampaign(CampaignExplanation(campaign: APIExamples.campaign { $0.id = 43; $0.name = "Android only"; $0.state = .live }, outcome: .targeting, field: .platform)),
                              ], at: APIExamples.updated))])

    public static let appSet = RPCMethod<AppPatch, AppSetResult>(
        "app.set", summary: "Set an app's market, time zone, logo or report threshold: only the fields given change.",
        description: "The first app.set of an app must give its market (-32602 naming market otherwise) and starts from the defaults UTC and no logo; later ones change only the fields they give (an app never set reads as global, in UTC, with no logo). A bad field is refused with -32602 naming it: an app id outside its rule, a market that is not cn, eu or global, a time zone that is not an IANA name of the tz database, a logo that is not an uploaded creative's sha256, a reportPause outside 0 to 1000000 (0 turns the threshold off: a live campaign of the app is paused, by the actor rules, when a report makes its reports of the current or previous hour cross it, never for an hour before its last resume; see report.list). The change is kept in the app's log with who made it (app.get); a patch that changes nothing (a retried call) is not logged. The answer lists the live, scheduled and paused campaigns of the app that break its market's rules, each with its state and every rule it breaks; none of them is changed (pause or update them: an update, a resume and a force are checked against the rules).",
        idempotent: true,
        examples: [RPCExample("an app moved to the Chinese market", params: AppPatch(app: "com.example.shop", market: .cn, timezone: "Asia/Shanghai"),
                              result: AppSetResult(app: APIExamples.app, breaking: [
                                BreakingCampaign(id: 42, name: "Singles' Day", state: .live, breaches: MarketRules.rules(of: .cn).filter { $0.field == .clickArea }.map(\.breach)),
                              ]))])
    public static let appGet = RPCMethod<AppParams, AppResult>(
        "app.get", summary: "One app: its market, time zone and logo (the defaults for an app never set), and its latest changes.",
        idempotent: true,
        examples: [RPCExample("an app set once", params: AppParams(app: "com.example.shop"),
                              result: AppResult(app: APIExamples.app, changes: [
                                AppChange(at: APIExamples.updated, actor: "alice", before: nil, after: APIExamples.app),
                              ]))])
    public static let reportList = RPCMethod<ReportListParams, ReportListResult>(
        "report.list", summary: "Reported campaigns (launch.report kind reported): by campaign, its reports by reason and the hour of the latest, the most reported first.",
        description: "Of one app's campaigns or every app's (never a deleted one), from the hour of since on (default: every hour kept, --stats-retention); limit above \(ReportListParams.maxLimit) is refused. An app whose reportPause is set (app.set) has a campaign paused, as a change by the actor rules, by the report that makes its reports of the current or previous hour (UTC) cross it (never for an hour before its last resume).",
        idempotent: true,
        examples: [RPCExample("one app's reports", params: ReportListParams(app: "com.example.shop"),
                              result: ReportListResult(campaigns: [
                                ReportedCampaign(id: 42, name: "Singles' Day", app: "com.example.shop", total: 7,
                                                 reasons: ReportReasons(inappropriate: 1, misleading: 4, repetitive: 2),
                                                 lastAt: Timestamp(rfc3339: "2026-11-11T01:00:00Z")!),
                              ]))])
    public static let appList = RPCMethod<NoParams, AppListResult>(
        "app.list", summary: "Every app set, by id.", idempotent: true,
        examples: [RPCExample("one app", params: NoParams(), result: AppListResult(apps: [APIExamples.app]))])

    static func operation(_ name: String, _ summary: String, description: String? = nil,
                          _ change: (inout Campaign) -> Void) -> RPCMethod<CampaignID, CampaignChangeResult> {
        RPCMethod(name, summary: summary, description: description, errors: campaignErrors,
                  examples: [RPCExample("campaign 42", params: CampaignID(id: 42),
                                        result: CampaignChangeResult(campaign: APIExamples.campaign(change), seq: 18))])
    }

    /// The operation each operation method applies.
    public static let operations: [(RPCMethod<CampaignID, CampaignChangeResult>, CampaignOperation)] = [
        (campaignForce, .forced), (campaignUnforce, .unforced), (campaignPause, .paused),
        (campaignResume, .resumed), (campaignExpire, .expired), (campaignDelete, .deleted),
    ]

    /// Every method of the admin socket, as the OpenRPC document lists them.
    public static let methods: [MethodInfo] = [
        creativeUpload.info, campaignCreate.info, campaignUpdate.info, campaignGet.info, campaignList.info,
        edgeList.info, campaignStats.info, appStats.info, appSet.info, appGet.info, appList.info, reportList.info, changeList.info, launchExplain.info, backupCreate.info, backupRead.info,
    ] + operations.map { $0.0.info }
}
