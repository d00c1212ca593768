import CampaignStore
import DurableFiles
import Foundation
import JSONRPC
import LaunchAdAPI
import LaunchAdDomain
import LaunchAdRuntime
import Logging
import ZMQRPC

enum AdminHandlers {
    /// `operatorNames` names operators' keys (from the keys folder's `admin/NAME.pub`) for the change log.
    static func table(store: any Store, edges: EdgeRegistry, operatorNames: [String: String] = [:], backups: BackupShelf,
                      maxCreativeBytes: Int, maxVideoBytes: Int, pacing: PacingService? = nil, clock: @escaping WallClock,
                      logger: Logger) -> MethodTable {
        var table = MethodTable()
        /// Who asked: the console's signed-in user, the key's name where the keys folder gives one, else the key, else
        /// `local` (no CURVE).
        @Sendable func actor(_ context: RPCContext) -> String {
            if let principal = context.principal { return principal }
            guard let key = context.peerKey else { return "local" }
            return operatorNames[key] ?? key
        }
        /// Every committed change is one log line, with the request, the campaign and who asked.
        @Sendable func committed(_ change: Change, _ context: RPCContext) -> CampaignChangeResult {
            logger.info("campaign changed", metadata: [
                LogField.requestId: LogField.requestId(context.id), LogField.campaignId: "\(change.id)",
                "op": "\(change.op.rawValue)", "seq": "\(change.seq)", "version": "\(change.campaign.version)",
                "actor": "\(actor(context))",
            ])
            return CampaignChangeResult(campaign: change.campaign, seq: change.seq)
        }

        table.register(AdminAPI.creativeUpload) { params, context in
            let bytes = try decodeBase64(params.data, limit: max(maxCreativeBytes, maxVideoBytes))
            let facts = try CreativeInspector.inspect(bytes, declaredType: params.contentType)
            // Its kind known, the creative is held to its kind's limit: a video may be larger than an image.
            let video = facts.contentType.hasPrefix("video/")
            let limit = video ? maxVideoBytes : maxCreativeBytes
            guard bytes.count <= limit else {
                let kind = video ? "videos" : "images"
                throw JSONRPCError(code: APIError.creativeRefused.code,
                                   message: "creative refused: \(bytes.count) bytes, the limit for \(kind) is \(limit)")
            }
            let sha256 = CreativeFiles.name(of: bytes)
            let info = CreativeFacts(sha256: sha256, contentType: facts.contentType, width: facts.width, height: facts.height, size: bytes.count,
                                     durationMs: facts.durationMs)
            try await store.addCreative(info, bytes: bytes, actor: actor(context), now: clock())
            logger.info("creative stored", metadata: [LogField.requestId: LogField.requestId(context.id), "sha256": "\(sha256)",
                                                      "bytes": "\(bytes.count)", "content_type": "\(facts.contentType)",
                                                      "duration_ms": "\(facts.durationMs)",
                                                      "actor": "\(actor(context))"])
            return info
        }
        table.register(AdminAPI.campaignCreate) { fields, context in
            let change = try await store.create(fields, actor: actor(context), now: clock())
            return committed(change, context)
        }
        table.register(AdminAPI.campaignUpdate) { params, context in
            let change = try await store.update(id: params.id, fields: params.fields, actor: actor(context), now: clock())
            return committed(change, context)
        }
        for (method, operation) in AdminAPI.operations {
            table.register(method) { params, context in
                let change = try await store.apply(operation, id: params.id, actor: actor(context), now: clock())
                return committed(change, context)
            }
        }
        table.register(AdminAPI.campaignGet) { params, _ in
            guard let campaign = try await store.campaign(id: params.id) else { throw StoreError.notFound(params.id) }
            return CampaignResult(campaign: campaign)
        }
        table.register(AdminAPI.campaignList) { params, _ in
            if let app = params.app { try AppID.validate(app, field: "app") }
            return CampaignListResult(campaigns: try await store.campaigns(app: params.app, state: params.state))
        }
        table.register(AdminAPI.edgeList) { _, _ in
            EdgeListResult(edges: try await edges.list(now: clock()), seq: try await store.currentSeq(), epoch: store.epoch)
        }
        /// Where `app`'s days begin: its `timezone` (UTC for an app never set).
        @Sendable func dayZone(of app: String) async throws -> DayZone {
            let timezone = try await store.app(app)?.timezone ?? AppSettings.defaultTimeZone
            guard let zone = DayZone(identifier: timezone) else {
                throw StoreError.field(FieldError("app", "is in the time zone \"\(timezone)\", which this machine's time zone database does not know; install tzdata or set its timezone again"))
            }
            return zone
        }
        table.register(AdminAPI.campaignStats) { params, _ in
            var query: StatsQuery?
            if params.wantsSeries {
                // One campaign's days begin in its app's zone; every campaign's at once (of many apps) in UTC.
                var zone = DayZone.utc
                if let id = params.id, let campaign = try await store.campaign(id: id) { zone = try await dayZone(of: campaign.app) }
                query = try params.seriesQuery(now: clock(), zone: zone)
            }
            let stats = try await store.stats(id: params.id)
            if let id = params.id, stats.isEmpty { throw StoreError.notFound(id) }
            var series: [StatsPoint]?
            if let query { series = try await store.statsSeries(query) }
            var lines: [PacingStats]?
            if let pacing {
                var campaigns: [Campaign]
                if let id = params.id { campaigns = try await store.campaign(id: id).map { [$0] } ?? [] } else {
                    campaigns = try await store.campaigns(app: nil, state: .live)
                }
                lines = try await pacing.stats(of: campaigns, now: clock())
                if lines?.isEmpty == true { lines = nil }
            }
            return CampaignStatsResult(stats: stats, series: series, timezone: query?.zone.identifier, pacing: lines)
        }
        table.register(AdminAPI.appStats) { params, _ in
            try AppID.validate(params.app, field: "app")
            let query = try params.query(now: clock(), zone: try await dayZone(of: params.app))
            let counts = try await store.appSeries(query)
            return AppStatsResult(app: query.app, from: query.from, to: query.to, by: query.by, timezone: query.zone.identifier,
                                  totals: AppFunnel(counts), series: counts.map { AppFunnel([$0], at: $0.hour) })
        }
        table.register(AdminAPI.appSet) { patch, context in
            try AppID.validate(patch.app, field: "app")
            let (app, breaking) = try await store.setApp(patch, actor: actor(context), now: clock())
            logger.info("app set", metadata: [LogField.requestId: LogField.requestId(context.id), "app": "\(app.app)",
                                              "market": "\(app.market.rawValue)", "timezone": "\(app.timezone)",
                                              "breaking": "\(breaking.count)", "actor": "\(actor(context))"])
            return AppSetResult(app: app, breaking: breaking)
        }
        table.register(AdminAPI.appGet) { params, _ in
            try AppID.validate(params.app, field: "app")
            let app = try await store.app(params.app) ?? AppSettings(app: params.app)
            return AppResult(app: app, changes: try await store.appHistory(params.app, limit: AppResult.maxChanges))
        }
        table.register(AdminAPI.appList) { _, _ in AppListResult(apps: try await store.apps()) }
        table.register(AdminAPI.reportList) { params, _ in
            try params.check()
            let limit = try params.checkedLimit()
            return ReportListResult(campaigns: try await store.reportedCampaigns(app: params.app, since: params.since, limit: limit))
        }
        table.register(AdminAPI.changeList) { params, _ in
            let limit = params.limit ?? ChangeListParams.defaultLimit
            guard (1...ChangeListParams.maxLimit).contains(limit) else {
                throw JSONRPCError.invalidParams(field: "limit", "must be between 1 and \(ChangeListParams.maxLimit)")
            }
            let after = params.after ?? 0
            guard after >= 0 else { throw JSONRPCError.invalidParams(field: "after", "must not be negative") }
            if let id = params.id, try await store.campaign(id: id) == nil { throw StoreError.notFound(id) }
            let records = try await store.changeLog(campaign: params.id, after: after, limit: limit)
            let entries = records.map { ChangeEntry(change: $0.change, actor: $0.actor, before: $0.before) }
            return ChangeListResult(changes: entries, next: entries.count == limit ? entries.last?.seq : nil)
        }
        table.register(AdminAPI.launchExplain) { params, _ in
            let request = try params.validated()
            let now = clock()
            let campaigns = try await store.campaigns(app: request.app, state: nil)
            var creatives: [String: CreativeFacts] = [:]
            for sha256 in Set(campaigns.flatMap { $0.creatives.map(\.sha256) }) {
                creatives[sha256] = try await store.creative(sha256: sha256)
            }
            // The edge's own index and decision, on campaignd's campaigns and creatives, for a device with no history.
            let index = DecisionEngine.index(campaigns, creatives: creatives, preparer: .json)[request.app]
            let (decision, explained) = DecisionEngine.explain(request, campaigns: campaigns, index: index, device: .make(), now: now)
            return LaunchExplainResult(hasAd: decision.campaign != nil, id: decision.campaign?.id, sha256: decision.creative?.sha256,
                                       revoked: decision.revoked, campaigns: explained.map(ExplainedCampaign.init), at: now)
        }
        table.register(AdminAPI.backupCreate) { _, _ in try await backups.create() }
        table.register(AdminAPI.backupRead) { params, _ in try await backups.read(params) }
        return table
    }

    /// Strict base64 (RFC 4648, padded), refused when its bytes would exceed `limit`.
    static func decodeBase64(_ text: String, limit: Int) throws -> [UInt8] {
        guard text.utf8.count / 4 * 3 <= limit + 2 else {
            throw JSONRPCError(code: APIError.creativeRefused.code, message: "creative refused: larger than the limit of \(limit) bytes")
        }
        guard let data = Data(base64Encoded: text), !data.isEmpty else {
            throw JSONRPCError.invalidParams(field: "data", "must be non-empty standard base64")
        }
        guard data.count <= limit else {
            throw JSONRPCError(code: APIError.creativeRefused.code, message: "creative refused: \(data.count) bytes, the limit is \(limit)")
        }
        return [UInt8](data)
    }
}
