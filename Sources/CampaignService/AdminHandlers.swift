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
    static func table(store: any Store, edges: EdgeRegistry, backups: BackupShelf, maxCreativeBytes: Int,
                      clock: @escaping WallClock, logger: Logger) -> MethodTable {
        var table = MethodTable()
        @Sendable func actor(_ context: RPCContext) -> String { context.peerKey ?? "local" }
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
            let bytes = try decodeBase64(params.data, limit: maxCreativeBytes)
            let facts = try CreativeInspector.inspect(bytes, declaredType: params.contentType)
            let sha256 = CreativeFiles.name(of: bytes)
            let info = CreativeFacts(sha256: sha256, contentType: facts.contentType, width: facts.width, height: facts.height, size: bytes.count)
            try await store.addCreative(info, bytes: bytes, actor: actor(context), now: clock())
            logger.info("creative stored", metadata: [LogField.requestId: LogField.requestId(context.id), "sha256": "\(sha256)",
                                                      "bytes": "\(bytes.count)", "content_type": "\(facts.contentType)",
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
            if let app = params.app, app.isEmpty { throw JSONRPCError.invalidParams(field: "app", "must not be empty") }
            return CampaignListResult(campaigns: try await store.campaigns(app: params.app, state: params.state))
        }
        table.register(AdminAPI.edgeList) { _, _ in
            EdgeListResult(edges: try await edges.list(now: clock()), seq: try await store.currentSeq(), epoch: store.epoch)
        }
        table.register(AdminAPI.campaignStats) { params, _ in
            let stats = try await store.stats(id: params.id)
            if let id = params.id, stats.isEmpty { throw StoreError.notFound(id) }
            return CampaignStatsResult(stats: stats)
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
