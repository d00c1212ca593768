import JSONRPC
import LaunchAdDomain

/// The sync socket's methods, for edges.
public enum SyncAPI {
    public static let info = OpenRPCInfo(title: "campaignd sync", version: "1.0.0",
                                         description: "Edges' API of the campaign service: snapshots, changes, creative bytes, acknowledgements and counts. A call whose response makes its reply 64 KiB or more (a snapshot page, changes, a creative chunk) is answered Busy (-32006) while the server holds too many such replies that peers have not read: the edge tries again later.")
    public static let maxChunk = 1 << 20
    /// The largest call campaignd's and relayd's sync sockets take (their `ZMQ_MAXMSGSIZE`; libzmq drops the
    /// connection of a peer that sends more). An edge's counts go in as many reports as they need to fit it.
    public static let maxCallBytes = 64 * 1024

    /// The most bytes of campaigns' JSON on a snapshot page or a page of changes (one campaign or change may pass it
    /// alone): well within what an edge takes in one reply.
    public static let maxPageBytes = 4 << 20
    /// The most campaigns on a snapshot page, and the page size when only `after` is given.
    public static let maxSnapshotPage = 10_000
    public static let defaultSnapshotPage = 1000
    /// The most changes on a page of `sync.changes`, and the page when no `limit` is given.
    public static let maxChangesPage = 10_000
    public static let defaultChangesPage = 1000

    public static let snapshot = RPCMethod<SnapshotParams, Snapshot>(
        "sync.snapshot", summary: "Every campaign at one sequence number, whole or a page at a time.",
        description: """
            An edge subscribes to the update stream first, then takes a snapshot, and drops the updates it already holds \
            (seq <= the snapshot's). Without params the answer holds every campaign. With `limit` or `after` it is one page: \
            the campaigns after id `after`, in order of id, at most `limit` and about 4 MiB of them, with `next` set when more \
            follow. Each page is read at its own `seq`: an edge joins the pages, then applies the change log from the first \
            page's `seq` (sync.changes), which makes every campaign current whichever page it came on.
            """,
        idempotent: true, errors: [APIError.busy],
        examples: [RPCExample("two campaigns", params: SnapshotParams(), result: Snapshot(epoch: APIExamples.epoch, seq: 17, campaigns: [APIExamples.plainCampaign, APIExamples.campaign])),
                   RPCExample("a first page of one campaign", params: SnapshotParams(limit: 1),
                              result: Snapshot(epoch: APIExamples.epoch, seq: 17, campaigns: [APIExamples.plainCampaign], next: APIExamples.plainCampaign.id))])
    public static let changes = RPCMethod<ChangesParams, ChangesResult>(
        "sync.changes", summary: "The changes after a sequence number, while the log keeps them.",
        description: "What an edge asks for when it sees a gap in the update stream. When the log no longer keeps them, or the epoch differs, the answer is -32005 and the edge takes a snapshot.",
        idempotent: true,
        errors: [APIError.changesUnavailable, APIError.busy],
        examples: [RPCExample("one change after 17", params: ChangesParams(epoch: APIExamples.epoch, since: 17, limit: 100),
                              result: ChangesResult(epoch: APIExamples.epoch, seq: 18, changes: [
                                  Change(seq: 18, op: .forced, id: 42, campaign: APIExamples.campaign { $0.forced = true }, at: APIExamples.updated),
                              ]))])
    public static let creative = RPCMethod<CreativeChunkParams, CreativeChunk>(
        "creative.get", summary: "Bytes of a stored creative, at most 1 MiB a call.", idempotent: true,
        errors: [APIError.creativeNotFound, APIError.busy],
        examples: [RPCExample("a whole small creative", params: CreativeChunkParams(sha256: APIExamples.creative.sha256),
                              result: CreativeChunk(sha256: APIExamples.creative.sha256, contentType: "image/png", width: 1080, height: 1920,
                                                    size: 41, durationMs: 0, offset: 0, data: APIExamples.creativeBase64))])
    public static let ack = RPCMethod<EdgeAck, EdgeAckResult>(
        "edge.ack", summary: "An edge acknowledges the sequence number it applied.",
        description: "An edge sends it as a notification (no answer) after each save of its state, and on each heartbeat it is level with: as a notification, and once in 10 seconds as a call, so that a refusal reaches it. With CURVE, campaignd takes an acknowledgement only for the edge id its key is listed under (edges/EDGE_ID.pub); for another id the answer is -32007. With CURVE it also takes one only sealed by that edge (mac, over its fields and sentAt), newer than the last it took from the edge and within 30 s of its clock; otherwise the answer is -32008.",
        idempotent: true, errors: [APIError.edgeKeyMismatch, APIError.sealRefused],
        examples: [RPCExample("applied 18", params: EdgeAck(edgeId: "edge-sh-1", region: "cn-east", epoch: APIExamples.epoch, appliedSeq: 18),
                              result: EdgeAckResult(seq: 18))])
}

extension SyncAPI {
    public static let report = RPCMethod<EdgeReport, EdgeReportResult>(
        "edge.report", summary: "An edge ships its impression, click and skip counts, and its apps' launches for the funnel (app.stats).",
        description: "With CURVE, campaignd takes counts only for the edge id the key is listed under (edges/EDGE_ID.pub); for another id the answer is -32007. With CURVE, a report must also carry its edge's seal (mac, over its id, report id, region and every count), whichever relays it came through; without it, or with a field altered, the answer is -32008. With hourly, each campaign's reasons in counts must be the sum of its reasons in hourly (-32602 naming counts[i].reasons, or hourly[i].reasons for a campaign counts leaves out); counts[i].reports, which an edge leaves out, is bounded like the other counts.",
        idempotent: true, errors: [APIError.edgeKeyMismatch, APIError.sealRefused],
        examples: [RPCExample("counts since the last report", params: EdgeReport(edgeId: "edge-sh-1", reportId: 1731254460, counts: [
            CampaignStats(id: 42, impressions: 120, clicks: 4, skips: 31),
        ], hourly: [
            HourlyCount(id: 42, hour: Timestamp(rfc3339: "2024-11-10T16:00:00Z")!, sha256: APIExamples.creative.sha256, impressions: 120, clicks: 4, skips: 31),
        ], region: "cn-east"), result: EdgeReportResult(accepted: true, lastReportId: 1731254460)),
                   RPCExample("with the launches of an app", params: EdgeReport(edgeId: "edge-sh-1", reportId: 1731254462, counts: [
            CampaignStats(id: 42, impressions: 2, clicks: 0, skips: 0),
        ], hourly: [
            HourlyCount(id: 42, hour: Timestamp(rfc3339: "2024-11-10T16:00:00Z")!, sha256: APIExamples.creative.sha256, impressions: 2),
        ], apps: [
            AppHourlyCount(app: "com.example.shop", hour: Timestamp(rfc3339: "2024-11-10T16:00:00Z")!, requests: 5, noAds: 1, timeouts: 1, failures: 0, shows: 2),
        ], region: "cn-east"), result: EdgeReportResult(accepted: true, lastReportId: 1731254462))])

    public static let acks = RPCMethod<EdgeAcks, EdgeAcksResult>(
        "edge.acks", summary: "A relay passes on the acknowledgements of the edges behind it, together.",
        description: """
            Each acknowledgement is taken as edge.ack takes it, with `via` naming the relays it came through (the one nearest \
            campaignd first), so that edge.list and adctl --wait see every edge behind relays. With CURVE, campaignd takes \
            them only from a relay's key (relays/RELAY_ID.pub), for acknowledgements whose `via` begins with that relay's id \
            (-32007 otherwise), and each only with its edge's seal, as edge.ack: one without is left out and named in \
            `refused`, and the others are taken.
            """,
        idempotent: true, errors: [APIError.edgeKeyMismatch],
        examples: [RPCExample("two edges behind relay-eu-1", params: EdgeAcks(acks: [
            EdgeAck(edgeId: "edge-fra-1", region: "eu-central", epoch: APIExamples.epoch, appliedSeq: 18, via: ["relay-eu-1"]),
            EdgeAck(edgeId: "edge-fra-2", region: "eu-central", epoch: APIExamples.epoch, appliedSeq: 18, via: ["relay-eu-1"]),
        ]), result: EdgeAcksResult(taken: 2))])

    /// Every method of the sync socket, as the OpenRPC document lists them.
    public static let methods: [MethodInfo] = [snapshot.info, changes.info, creative.info, ack.info, acks.info, report.info]
}
