import JSONRPC
import LaunchAdDomain

/// The client socket's methods: public, so strictly validated; no admin method is reachable here.
public enum ClientAPI {
    public static let info = OpenRPCInfo(title: "deliveryd client", version: "1.0.0",
                                         description: "The apps' API of an edge: which launch ad to show now. Public: every param is validated, and messages over 64 KiB are refused by the socket. A call whose response makes its reply 64 KiB or more (a creative chunk, a large batch) is answered Busy (-32006) while the edge holds too many such replies that clients have not read.")

    public static let launchQuery = RPCMethod<LaunchQueryParams, LaunchAnswer>(
        "launch.query", summary: "Which launch ad to show now, and which cached ads to delete.",
        description: "Among the live campaigns that target the request and are under their cap for the device: forced ones first, then the highest priority, ties by weight (stable for a device until it reports an impression); the creative whose aspect ratio is nearest the screen, preferring one the client holds. Reported impressions take a device round the tied campaigns, and round a campaign's variants, each once per round; a new round never starts with the one shown last.",
        idempotent: true, errors: [APIError.busy],
        examples: [
            RPCExample("an ad", params: LaunchQueryParams(app: "com.example.shop", platform: "ios", appVersion: "6.1.0", region: "cn-east",
                                                          locale: "zh-CN", deviceId: "d41d8cd98f00b204", screen: APIExamples.screen,
                                                          launchType: .hot, backgroundSeconds: 1800, cached: [APIExamples.creative.sha256]),
                       result: LaunchAnswer(hasAd: true, id: 42, version: 2, showMoment: 0, launchTypes: [.cold, .hot],
                                            imgUrl: "https://edge-sh-1.example.com/creatives/\(APIExamples.creative.sha256)",
                                            creative: .init(sha256: APIExamples.creative.sha256, contentType: "image/png", width: 1080, height: 1920, size: 41),
                                            jumpType: "url", jumpValue: "https://shop.example.com/double11",
                                            countdown: 5, skippable: true, skipAfter: 2, forced: true, expiresAt: APIExamples.campaign.endsAt,
                                            epoch: APIExamples.epoch, seq: 18, revoked: [7])),
            RPCExample("no ad", params: LaunchQueryParams(app: "com.example.news", platform: "android", appVersion: "3.4"),
                       result: LaunchAnswer(hasAd: false, epoch: APIExamples.epoch, seq: 18, revoked: [])),
        ])
    public static let edgeStatus = RPCMethod<NoParams, EdgeStatus>(
        "edge.status", summary: "The state the edge answers from and its contact with campaignd.", idempotent: true,
        errors: [APIError.busy],
        examples: [RPCExample("in touch", params: NoParams(), result: EdgeStatus(
            edgeId: "edge-sh-1", region: "cn-east", epoch: APIExamples.epoch, seq: 18, loaded: true, stale: false, skewSeconds: -0.012,
            campaigns: 2, creatives: 2, resyncs: 1, gaps: 0, appliedAt: Timestamp(rfc3339: "2026-11-10T16:00:02.125Z")))])
}

extension ClientAPI {
    public static let launchReport = RPCMethod<LaunchReportParams, LaunchReportResult>(
        "launch.report", summary: "Impressions, clicks and skips, the users' reports of an ad, and the funnel's request, noAd, timeout and failed; idempotent by event id, also across restarts of the edge; they feed caps, rotation and stats.",
        description: "impression, click, skip and reported name a campaign the edge knows (and, with app, its app); reported needs a reason (inappropriate, misleading, repetitive or other), which no other kind takes (-32602 naming events[i].reason), and is counted as reports in campaign.stats and report.list. request, noAd, timeout and failed name the app (campaignId optional) and are counted by app and hour, with the impressions of the app's campaigns as shows, for app.stats; an app with no campaign is counted too.",
        idempotent: true, errors: [APIError.busy],
        examples: [RPCExample("an impression and a click, the impression sent before", params: LaunchReportParams(events: [
            LaunchEvent(eventId: "d41d8cd98f00b204-1731254400-1", type: .impression, campaignId: 42, deviceId: "d41d8cd98f00b204",
                        sha256: APIExamples.creative.sha256, at: Timestamp(rfc3339: "2026-11-10T16:00:05Z")!),
            LaunchEvent(eventId: "d41d8cd98f00b204-1731254400-2", type: .click, campaignId: 42, deviceId: "d41d8cd98f00b204"),
        ]), result: LaunchReportResult(accepted: 1, duplicates: 1)),
                   RPCExample("a launch that asked and timed out", params: LaunchReportParams(events: [
            LaunchEvent(eventId: "d41d8cd98f00b204-1731254460-1", type: .request, campaignId: nil, deviceId: "d41d8cd98f00b204",
                        at: Timestamp(rfc3339: "2026-11-10T16:01:00Z")!, app: "com.example.shop"),
            LaunchEvent(eventId: "d41d8cd98f00b204-1731254460-2", type: .timeout, campaignId: nil, deviceId: "d41d8cd98f00b204",
                        at: Timestamp(rfc3339: "2026-11-10T16:01:00.5Z")!, app: "com.example.shop"),
        ]), result: LaunchReportResult(accepted: 2, duplicates: 0)),
                   RPCExample("the user reported the ad shown as misleading", params: LaunchReportParams(events: [
            LaunchEvent(eventId: "d41d8cd98f00b204-1731254400-reported", type: .reported, campaignId: 42, deviceId: "d41d8cd98f00b204",
                        at: Timestamp(rfc3339: "2026-11-10T16:00:09Z")!, reason: .misleading),
        ]), result: LaunchReportResult(accepted: 1, duplicates: 0))])
    public static let launchPrefetch = RPCMethod<LaunchPrefetchParams, LaunchPrefetchResult>(
        "launch.prefetch", summary: "What to download now (campaigns live or starting within a horizon) and what to delete.",
        idempotent: true, errors: [APIError.busy],
        examples: [RPCExample("the next two days", params: LaunchPrefetchParams(
            app: "com.example.shop", platform: "ios", appVersion: "6.1.0", region: "cn-east", locale: "zh-CN", screen: APIExamples.screen,
            horizonHours: 48, cached: [APIExamples.otherSHA256]), result: LaunchPrefetchResult(download: [
                PrefetchItem(campaignId: 42, sha256: APIExamples.creative.sha256, url: "https://edge-sh-1.example.com/creatives/\(APIExamples.creative.sha256)",
                             contentType: "image/png", width: 1080, height: 1920, size: 41, durationMs: 0, startsAt: APIExamples.campaign.startsAt, endsAt: APIExamples.campaign.endsAt),
            ], delete: [APIExamples.otherSHA256], revoked: [7], epoch: APIExamples.epoch, seq: 18))])
    public static let creativeGet = RPCMethod<CreativeChunkParams, CreativeChunk>(
        "creative.get", summary: "Bytes of a creative the edge holds, at most 1 MiB a call.", idempotent: true,
        errors: [APIError.creativeNotFound, APIError.busy],
        examples: [RPCExample("from an offset", params: CreativeChunkParams(sha256: APIExamples.creative.sha256, offset: 16, length: 1024),
                              result: CreativeChunk(sha256: APIExamples.creative.sha256, contentType: "image/png", width: 1080, height: 1920,
                                                    size: 41, durationMs: 0, offset: 16, data: "AAAEOAAAB4AIBgAAAAAAAABmaWxsZXItMA=="))])

    public static let launchWhy = RPCMethod<LaunchWhyParams, LaunchWhyResult>(
        "launch.why", summary: "Why this device was answered a campaign: on whose behalf, who paid, and the main parameters by which it was chosen.",
        description: "For the ad label's \"why this ad\" (DSA Art. 26; Apple's guideline 2.5.18). The params are the launch query's, checked by its rules, and the campaign's id. The edge explains its own decision for them: the campaign must be the one it answers the device, another of the same tier its rotation or weighted draw takes turns with, or one held back only by the device's own cap at or above the answer's tier (or when nothing is answered). The params name no launch type: a campaign is explained for a cold launch, and when that does not answer it and it is shown at hot launches too, for a hot launch after any time away. The reasons are the campaign's targeting facts that the device met (none for a campaign that targets every device of its app). Any other campaign is refused with NotAnswered (-32011), never given a reason.",
        idempotent: true, errors: [APIError.notAnswered, APIError.busy],
        examples: [RPCExample("a targeted ad", params: LaunchWhyParams(app: "com.example.shop", platform: "ios", appVersion: "6.1.0", region: "cn-east",
                                                                       locale: "zh-CN", deviceId: "d41d8cd98f00b204", id: 42),
                              result: LaunchWhyResult(id: 42, advertiser: "Example Shop", paidBy: "Example Brands Ltd", reasons: [
                                  WhyReason(field: .platform, value: "ios"), WhyReason(field: .appVersion, value: ">=6.0 <7.0"),
                                  WhyReason(field: .region, value: "cn-east"), WhyReason(field: .locale, value: "zh-CN"),
                                  WhyReason(field: .forced, value: "true"),
                              ]))])

    /// Every method of the client socket, as the OpenRPC document lists them.
    public static let methods: [MethodInfo] = [
        launchQuery.info, launchReport.info, launchPrefetch.info, launchWhy.info, creativeGet.info, edgeStatus.info,
    ]
}
