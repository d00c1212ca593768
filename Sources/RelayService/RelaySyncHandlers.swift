import CampaignFollowing
import Foundation
import JSONRPC
import LaunchAdAPI
import LaunchAdDomain
import LaunchAdRuntime
import ZMQRPC

/// The sync socket of a relay: the same methods and answers as campaignd's, served from the relay's followed state
/// (snapshots, pages of them, creatives' bytes) and its change-log window; acknowledgements are passed upstream in
/// batches, reports at once (campaignd counts each report id once, so a report sent again is harmless).
enum RelaySyncHandlers {
    struct Context: Sendable {
        let relayId: String
        let followed: FollowedState
        let publisher: RelayPublisher
        let forwarder: AckForwarder
        /// The same upstream as the forwarder's: reports, and creatives the relay does not hold yet.
        let upstream: RPCClient
        let edgeKeys: EdgeKeys?
        let pager = SnapshotPager()

        /// The highest seq this relay holds or has published: nothing below it can have applied more.
        var seq: Int64 { max(followed.cell.state.seq, publisher.position.seq) }
    }

    static func table(_ context: Context) -> MethodTable {
        var table = MethodTable()
        let notReady = JSONRPCError(code: JSONRPCError.internalErrorCode, message: "the relay holds no state yet: it has not reached its upstream")
        table.register(SyncAPI.snapshot) { params, _ in
            let state = context.followed.cell.state
            guard state.isLoaded else { throw notReady }
            guard params.isPaged else { return context.pager.snapshot(of: state) }
            let (after, limit) = try params.checked()
            return context.pager.page(of: state, after: after, limit: limit)
        }
        table.register(SyncAPI.changes, inline: { params, _ in
            guard let result = context.publisher.changes(params) else {
                throw JSONRPCError(code: APIError.changesUnavailable.code, message: APIError.changesUnavailable.message)
            }
            return result
        })
        table.register(SyncAPI.creative) { params, _ in
            let (offset, length) = try params.checked()
            if let (facts, bytes) = try context.followed.read(sha256: params.sha256, offset: offset, length: length) {
                return CreativeChunk(facts, offset: offset, bytes: bytes)
            }
            // Not here yet (the relay fetches it as the edges below do, at the same moment): upstream has it.
            return try await context.upstream.call(SyncAPI.creative, params)
        }
        table.register(SyncAPI.ack, inline: { ack, call in
            try EdgeKeys.validate(ack, field: "", key: call.peerKey, keys: context.edgeKeys, method: SyncAPI.ack.name)
            try PeerNumbers.check(ack, field: "", seq: context.seq)
            context.forwarder.take([ack])
            return EdgeAckResult(seq: ack.appliedSeq)
        })
        table.register(SyncAPI.acks, inline: { batch, call in
            guard batch.acks.count <= EdgeAcks.maxAcks else { throw JSONRPCError.invalidParams(field: "acks", "must list at most \(EdgeAcks.maxAcks)") }
            let seq = context.seq
            // As campaignd: an acknowledgement out of bounds is left out and named, the rest passed on.
            var inBounds: [EdgeAck] = [], refused: [String] = []
            for (index, ack) in batch.acks.enumerated() {
                try EdgeKeys.validate(ack, field: "acks[\(index)].", key: call.peerKey, keys: context.edgeKeys, method: SyncAPI.acks.name)
                do {
                    try PeerNumbers.check(ack, field: "acks[\(index)].", seq: seq)
                    inBounds.append(ack)
                } catch {
                    refused.append(ack.edgeId)
                }
            }
            context.forwarder.take(inBounds)
            return EdgeAcksResult(taken: inBounds.count, refused: refused.isEmpty ? nil : refused)
        })
        table.register(SyncAPI.report) { report, call in
            try EdgeKeys.validate(report, key: call.peerKey, keys: context.edgeKeys, method: SyncAPI.report.name)
            // campaignd checks the hours against its own retention; a relay, which does not know it, against the longest.
            try PeerNumbers.check(report, now: .now(), retention: PeerNumbers.maxStatsRetention)
            var passed = report
            passed.via = [context.relayId] + (report.via ?? [])
            return try await context.upstream.call(SyncAPI.report, passed)
        }
        return table
    }
}
