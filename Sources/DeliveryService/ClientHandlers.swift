import CampaignFollowing
import Foundation
import JSONRPC
import LaunchAdAPI
import LaunchAdDomain

/// The client socket's methods. Everything runs inline on the socket's thread: each answer is a pure decision
/// over the current state (one atomic load) and a device's history.
enum ClientHandlers {
    struct Context: Sendable {
        let configuration: DeliveryServiceConfiguration
        let cell: StateCell
        let status: SyncStatus
        let cacheHealth: CacheHealth
        let devices: DeviceHistory
        let ledger: EventLedger
        let cache: CreativeCache
        let metrics: EdgeMetrics
        let publicBase: PublicBase
        let clock: @Sendable () -> Timestamp
    }

    static func table(_ context: Context) -> MethodTable {
        var methods = MethodTable()
        // The request is read and checked in one pass (straight from the message's bytes when the call is compact),
        // and the answer written straight from the decision (the same bytes as a `LaunchAnswer` made from it).
        methods.register(ClientAPI.launchQuery, reading: LaunchQueryParams.request(json:), checking: { try $0.validated() },
                         compact: LaunchQueryParams.request(compact:), writing: { request, _, json in
            let (decision, state) = decide(request, context)
            LaunchAnswer.write(decision, state: state.answerState, creativeBase: context.publicBase.prepared, into: &json)
        })
        // Reports and prefetches are read straight from the message's bytes too when their calls are compact.
        methods.register(ClientAPI.launchReport, reading: LaunchReportParams.init(json:), checking: { $0 },
                         compact: LaunchReportParams.init(compact:), writing: { params, _, json in
            try params.checkCount()
            let now = context.clock()
            let state = context.cell.state
            let campaigns = state.campaigns
            for (index, event) in params.events.enumerated() {
                // A campaign's event: whether the edge knows the campaign is the edge's to say first, the rest the
                // event's rules, then its app against the campaign's. A funnel's report may name a campaign the
                // edge no longer holds (ended since the launch): it is counted by its app.
                if !event.type.isFunnel, let id = event.campaignId, campaigns[id] == nil {
                    throw JSONRPCError.invalidParams(field: "events[\(index)].campaignId", "is not a campaign this edge knows")
                }
                try event.check(at: index, now: now)
                if let app = event.app, let id = event.campaignId, let campaign = campaigns[id], campaign.app != app {
                    throw LaunchEvent.invalid(.app, at: index, "must be campaign \(id)'s app (\(campaign.app))")
                }
            }
            var accepted = 0
            for event in params.events {
                let campaign = event.campaignId.flatMap { campaigns[$0] }
                // Counted by creative only when it is one of the campaign's (a made-up one would only grow the counts).
                let creative = event.sha256.flatMap { sha256 in campaign?.creatives.contains { $0.sha256 == sha256 } == true ? sha256 : nil }
                // A funnel's report is counted under the app it names, an impression as a show of its campaign's app.
                let app = event.type.isFunnel ? event.app : campaign?.app
                guard context.ledger.admit(event, creative: creative, app: app, now: now) else { continue }
                accepted += 1
                if let campaign, !event.type.isFunnel {
                    context.devices.record(event, of: campaign, at: event.at ?? now) {
                        DecisionEngine.rotationGroup(of: campaign, in: state.appIndex(campaign.app))
                    }
                }
            }
            LaunchReportResult(accepted: accepted, duplicates: params.events.count - accepted).write(json: &json)
        })
        // The answer is written straight from each creative's item prepared with the state (the same bytes as the
        // `LaunchPrefetchResult` listing them): an answer lists, for each campaign ahead, the creatives of the
        // client's shape (all of them when it gives no screen).
        methods.register(ClientAPI.launchPrefetch, reading: LaunchPrefetchParams.init(json:), checking: { $0 },
                         compact: LaunchPrefetchParams.init(compact:), writing: { params, _, json in
            let query = LaunchQueryParams(app: params.app, platform: params.platform, appVersion: params.appVersion,
                                          region: params.region, locale: params.locale, screen: params.screen, cached: params.cached)
            let request = try query.validated()
            let horizon = try params.horizon()
            let state = context.cell.state
            let now = context.clock()
            let until = now.adding(seconds: Double(horizon) * 3600)
            let endClock = max(now, context.status.serviceNow(now))
            let index = state.appIndex(request.app)
            // Room for a creative of each of the first campaigns ahead at once (appended one by one, the list was made
            // again and again as it grew); an app of thousands of campaigns grows it from there.
            var download: [HeldCreative] = []
            download.reserveCapacity(min(index?.candidates.count ?? 0, 32))
            for candidate in index?.candidates ?? [] {
                let campaign = candidate.campaign
                // A test audience's campaign is answered to its test devices alone, and a prefetch names no device; one
                // whose goal is met (a share of 0) is not answered again this period, and the answer revokes it.
                guard campaign.endsAt > endClock, campaign.startsAt <= until, campaign.share != 0, DecisionEngine.audienceTakes(candidate, request),
                      DecisionEngine.matches(candidate, request) ||
                        campaign.launchTypes.contains(.hot) && DecisionEngine.matches(candidate, request.launched(as: .hot))
                else { continue }
                // Only the creatives a query from the client's screen may show: it would never be shown the others.
                DecisionEngine.appendCreatives(of: candidate, for: request.screen, to: &download)
            }
            var delete: [String] = []
            if !request.cached.isEmpty {
                let keep = Set(download.lazy.map(\.facts.sha256))
                delete = request.cached.subtracting(keep).sorted()
            }
            LaunchPrefetchResult.write(download: download, delete: delete, revoked: index?.revoked ?? [], epoch: state.epoch,
                                       seq: state.seq, creativeBase: context.publicBase.prepared, into: &json)
        })
        // The edge's own decision explained for the device, over the state and the device's history the launch query
        // reads (see ``DecisionEngine/why(_:id:index:device:now:serviceNow:)``).
        methods.register(ClientAPI.launchWhy, inline: { params, _ in
            let request = try params.validated()
            let now = context.clock()
            guard let why = DecisionEngine.why(request, id: params.id, index: context.cell.state.appIndex(request.app),
                                               device: context.devices.view(request.deviceId), now: now,
                                               serviceNow: context.status.serviceNow(now)) else {
                throw LaunchWhyResult.notAnswered(params.id)
            }
            return LaunchWhyResult(why)
        })
        methods.register(ClientAPI.creativeGet, inline: { params, _ in
            let (offset, length) = try params.checked()
            let notFound = JSONRPCError(code: APIError.creativeNotFound.code, message: "no creative \(params.sha256) on this edge")
            guard let facts = context.cell.state.creatives[params.sha256] else { throw notFound }
            guard offset <= facts.size else { throw JSONRPCError.invalidParams(field: "offset", "is past the end (\(facts.size) bytes)") }
            guard let bytes = try context.cache.read(sha256: params.sha256, size: facts.size, offset: offset, length: length) else { throw notFound }
            return CreativeChunk(facts, offset: offset, bytes: bytes)
        })
        methods.register(ClientAPI.edgeStatus, inline: { _, _ in
            let state = context.cell.state
            return EdgeStatus(edgeId: context.configuration.following.followerId, region: context.configuration.following.region, epoch: state.epoch,
                              seq: state.seq, loaded: state.isLoaded, stale: !context.status.connected,
                              skewSeconds: context.status.skew, campaigns: state.campaigns.count,
                              creatives: state.creatives.count, resyncs: context.status.resyncs, gaps: context.status.gaps,
                              cacheWritable: context.cacheHealth.writable,
                              appliedAt: context.status.appliedAt(epoch: state.epoch, seq: state.seq))
        })
        return methods
    }

    /// The launch decision for `request` over the current state, counted in the metrics: what `launch.query` and
    /// `GET /launch-ad` answer.
    @inline(__always)
    static func decide(_ request: LaunchRequest, _ context: Context) -> (Decision, EdgeState) {
        let state = context.cell.state
        let now = context.clock()
        let decision = DecisionEngine.decide(request, index: state.appIndex(request.app),
                                             device: context.devices.view(request.deviceId), now: now,
                                             serviceNow: context.status.serviceNow(now))
        context.metrics.answered(hasAd: decision.candidate != nil)
        return (decision, state)
    }

    /// `GET /launch-ad`'s answer: the launch decision in the classic envelope.
    static func launchAd(_ context: Context) -> @Sendable (LaunchRequest, inout JSONWriter) -> Void {
        { request, json in
            let (decision, state) = decide(request, context)
            ClassicLaunchAnswer.write(decision, state: state.answerState, creativeBase: context.publicBase.prepared, into: &json)
        }
    }
}
