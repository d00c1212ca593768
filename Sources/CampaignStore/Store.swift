import LaunchAdAPI
import LaunchAdDomain

/// Where campaignd keeps campaigns, the change log, creatives, the epoch, edges' acknowledgements and report counts:
/// the interface its handlers, publisher, scheduler and sync API use, whatever engine is under it (``SQLiteStore`` is
/// the embedded one, ``PostgresStore`` the shared one). Every engine keeps the same promises:
/// - a write returns only after it is durable;
/// - each committed change takes the next `seq` in the change's own transaction, so `seq` has no gaps and every
///   snapshot is consistent with one `seq`;
/// - the epoch belongs to the database: made with it, kept for its life.
public protocol Store: Sendable {
    /// The database's random id: a new database is a new epoch.
    var epoch: String { get }

    /// The sequence number of the last committed change (0 before any).
    func currentSeq() async throws -> Int64

    func campaign(id: Int64) async throws -> Campaign?

    /// Campaigns, optionally of one app and one state, by id. Deleted ones only when asked for by state.
    func campaigns(app: String?, state: CampaignState?) async throws -> [Campaign]

    /// Every campaign an edge needs (deleted ones too, as tombstones for revocation) at one `seq`.
    func snapshot() async throws -> Snapshot

    /// One page of the snapshot: the campaigns after id `after` (deleted ones too), in order of id, read at one
    /// `seq`; at most `limit` of them, and no more once their JSON passes `maxBytes` (but always one, when any
    /// follows). `next` is set when more campaigns follow. Pages read at different times may hold different `seq`s:
    /// an edge that joins them catches up from the first page's `seq` through the change log (see `changes`).
    func snapshotPage(after: Int64, limit: Int, maxBytes: Int) async throws -> Snapshot

    /// The changes after `seq`, at most `limit`, and no more once their campaigns' JSON passes `maxBytes` (but always
    /// one, when any follows); `nil` when the log no longer reaches back that far.
    func changes(since seq: Int64, limit: Int, maxBytes: Int) async throws -> [Change]?

    /// The change log as it is kept, with who made each change and the campaign as it was before it: the changes
    /// after `seq` (of one campaign when `campaign` is given), in `seq` order, at most `limit`.
    func changeLog(campaign: Int64?, after seq: Int64, limit: Int) async throws -> [ChangeRecord]

    /// A page of one campaign's history, newest first: its changes before `seq` (from the last when `nil`), each with
    /// who made it and the campaign before it, at most `limit`, and no more once the JSON of their campaigns (after
    /// and before each change) passes `maxBytes` (but always one, when any is older): a campaign changed thousands of
    /// times, each change carrying it whole, is read a bounded page at a time.
    func campaignHistory(campaign: Int64, before seq: Int64?, limit: Int, maxBytes: Int) async throws -> [ChangeRecord]

    /// The earliest time at which time alone changes some campaign.
    func nextTransitionTime() async throws -> Timestamp?

    /// Counts of campaigns by state.
    func countsByState() async throws -> [CampaignState: Int]

    /// Creates a campaign; `actor` is recorded in the change log.
    func create(_ fields: CampaignFields, actor: String, now: Timestamp) async throws -> Change

    /// Changes some fields of a campaign.
    func update(id: Int64, fields: CampaignFields, actor: String, now: Timestamp) async throws -> Change

    /// Applies an operator's operation: force, unforce, pause, resume, expire, delete.
    func apply(_ operation: CampaignOperation, id: Int64, actor: String, now: Timestamp) async throws -> Change

    /// Applies what time does by `now` (starts and ends), each as its own change, in one transaction.
    func applyTimeTransitions(now: Timestamp) async throws -> [Change]

    /// Sets campaigns' serve shares (``Campaign/share``), each one that changes as its own change (`updated`, by the
    /// actor ``pacingActor``, its version kept: proto-docs/pacing.md), in one transaction; a campaign gone, final,
    /// without a goal or already at that share is passed over. With several campaignd on one database only the leader
    /// may: another's write is refused with ``NotLeading`` and changes nothing.
    func pace(_ shares: [CampaignShare], now: Timestamp) async throws -> [Change]

    /// A stored creative's facts, or `nil`.
    func creative(sha256: String) async throws -> CreativeFacts?

    /// Stores a creative's bytes and facts (`info.sha256` is the sha256 of `bytes`; storing the same bytes twice is
    /// fine).
    func addCreative(_ info: CreativeFacts, bytes: [UInt8], actor: String, now: Timestamp) async throws

    /// Gives each creative stored before durations were kept (its duration unknown) its duration, read from its bytes
    /// as an upload reads them (0 for a still image, and for one whose bytes are gone), once; returns how many it gave
    /// one. campaignd calls it at start, before it serves.
    @discardableResult
    func fillCreativeDurations() async throws -> Int

    /// Bytes `offset ..< offset + length` of a stored creative (fewer at its end).
    func creativeChunk(sha256: String, offset: Int, length: Int) async throws -> CreativeChunkRead

    /// Adds an edge's report to the counters, once: a report whose id is not above the last one taken from that
    /// edge is not added (it was sent again after a lost answer, or its id is stale). Returns whether it was taken,
    /// and the last id taken from the edge.
    /// With them, in the same transaction, `hourly` is added to the counts kept by campaign, hour, creative and
    /// `region` (what ``statsSeries(_:)`` answers), and `apps` to those kept by app and hour (what
    /// ``appSeries(_:)`` answers); every sum stops at `Int64.max`. Reports (``HourlyCount/reasons``) are added by
    /// campaign, hour and reason too, and a live campaign whose reports of an hour (the current or previous one at
    /// `now`) this report makes cross its app's ``AppSettings/reportPause`` is paused in the same transaction
    /// (``ReportPause``), a change like any other, made at `now`.
    @discardableResult
    func addReport(edgeId: String, reportId: Int64, counts: [CampaignStats], hourly: [HourlyCount], apps: [AppHourlyCount],
                   region: String, now: Timestamp) async throws -> (taken: Bool, last: Int64)

    /// Counts per campaign: one campaign's, or every campaign's but deleted ones; `reports` always, `reasons` (over
    /// the hours kept) when it has any.
    func stats(id: Int64?) async throws -> [CampaignStats]

    /// The campaigns reported in the hours from `since` on (every hour kept when `nil`), of one app or every app's
    /// (never deleted ones), each with its reports by reason and the hour of its latest: the most reported first,
    /// then by id, at most `limit`.
    func reportedCampaigns(app: String?, since: Timestamp?, limit: Int) async throws -> [ReportedCampaign]

    /// The counts over time `query` asks for: one campaign's or every campaign's but deleted ones, summed by bucket
    /// (and by creative and region when split), in order of campaign, bucket, creative and region; buckets with no
    /// count are left out.
    func statsSeries(_ query: StatsQuery) async throws -> [StatsPoint]

    /// One app's counts over time: summed by bucket of `query.by` from `query.from` to `query.to` (not included),
    /// each with its bucket's start as `hour`, in order; buckets with no count are left out.
    func appSeries(_ query: AppStatsQuery) async throws -> [AppHourlyCount]

    /// Forgets the hourly counts, by campaign, by reason and by app, of the hours that began before `cutoff` (the
    /// campaigns' totals stay); returns how many rows went, of the three tables together.
    @discardableResult
    func forgetHourlyStats(before cutoff: Timestamp) async throws -> Int

    // MARK: Apps

    /// The app as set, or `nil` for an app never set (whose defaults are ``AppSettings/init(app:market:timezone:logo:updatedAt:)``'s).
    func app(_ app: String) async throws -> AppSettings?

    /// Every app set, by id.
    func apps() async throws -> [AppSettings]

    /// Sets the fields `patch` gives (the others kept, or their defaults for an app never set, which must be given its
    /// market: ``StoreError/field(_:)`` naming `market` otherwise), with its change kept
    /// in the app's log with `actor`, in one transaction with the campaigns' writes; answers the app and the live,
    /// scheduled and paused campaigns of the app that break its market's rules (changed in no way). A patch that changes
    /// nothing writes and logs nothing (a retried call). A logo that is not an uploaded creative is refused
    /// (``StoreError/field(_:)``).
    func setApp(_ patch: AppPatch, actor: String, now: Timestamp) async throws -> (app: AppSettings, breaking: [BreakingCampaign])

    /// The app's changes, newest first, at most `limit`.
    func appHistory(_ app: String, limit: Int) async throws -> [AppChange]

    // MARK: Edges' acknowledgements

    /// Keeps the newest acknowledgement of each edge, with the relay path it came through (an older `lastSeen` than the
    /// stored one changes nothing).
    func saveAcknowledgements(_ edges: [EdgeInfo]) async throws

    /// Every edge's newest stored acknowledgement, by edge id (`stale` as saved; the caller judges it).
    func acknowledgements() async throws -> [EdgeInfo]

    /// Forgets the edges last seen before `cutoff` (their acknowledgements); returns their ids.
    @discardableResult
    func forgetAcknowledgements(lastSeenBefore cutoff: Timestamp) async throws -> [String]

    // MARK: Publishing, with one publisher among the processes sharing the database

    /// The `seq` of the last change the publisher (of any process) sent on the update stream.
    func publishedSeq() async throws -> Int64

    /// Records that every change up to `seq` was sent on the update stream.
    func setPublishedSeq(_ seq: Int64) async throws

    /// A wake-up after changes commit, in this process or (where the engine allows several) another; wake-ups may be
    /// merged or lost, so a listener reads the change log for the truth and also looks on its own now and then.
    func commitWakeups() -> AsyncStream<Void>

    /// Runs `lead` whenever this process is the publisher: at once and for good on an engine with one process, or
    /// while it holds the database's leadership when several share it. `lead` is cancelled when leadership is lost,
    /// and is run again when it is won back. Returns when cancelled.
    func whileLeading(_ lead: @escaping @Sendable () async throws -> Void) async throws

    /// Writes a consistent copy of the database to the new file `path` while the store keeps serving, and answers
    /// the last `seq` the copy holds and the epoch it was given. Only the embedded engine can (``BackupUnsupported``
    /// otherwise): PostgreSQL is backed up with its own tools.
    func backup(to path: String) async throws -> (seq: Int64, epoch: String)
}

/// The engine cannot make a copy of itself: PostgreSQL is backed up with `pg_dump` or its replicas.
public struct BackupUnsupported: Error, Sendable, CustomStringConvertible {
    public init() {}
    public var description: String {
        "this campaignd keeps its campaigns in PostgreSQL: back them up with PostgreSQL's own tools (pg_dump, or a replica)"
    }
}

extension Store {
    /// Adds a report's counts with no hourly counts (as an older edge sends them).
    @discardableResult
    public func addReport(edgeId: String, reportId: Int64, counts: [CampaignStats]) async throws -> (taken: Bool, last: Int64) {
        try await addReport(edgeId: edgeId, reportId: reportId, counts: counts, hourly: [], apps: [], region: "", now: .now())
    }

    /// Adds a report's counts with no counts by app (as an edge from before the funnel sends them).
    @discardableResult
    public func addReport(edgeId: String, reportId: Int64, counts: [CampaignStats], hourly: [HourlyCount],
                          region: String) async throws -> (taken: Bool, last: Int64) {
        try await addReport(edgeId: edgeId, reportId: reportId, counts: counts, hourly: hourly, apps: [], region: region, now: .now())
    }

    /// Adds a report at the time it is added (``addReport(edgeId:reportId:counts:hourly:apps:region:now:)``).
    @discardableResult
    public func addReport(edgeId: String, reportId: Int64, counts: [CampaignStats], hourly: [HourlyCount], apps: [AppHourlyCount],
                          region: String) async throws -> (taken: Bool, last: Int64) {
        try await addReport(edgeId: edgeId, reportId: reportId, counts: counts, hourly: hourly, apps: apps, region: region, now: .now())
    }

    /// Every campaign's changes after `seq`, at most `limit`.
    public func changeLog(after seq: Int64, limit: Int) async throws -> [ChangeRecord] {
        try await changeLog(campaign: nil, after: seq, limit: limit)
    }
}

/// One change of the log with who made it: an operator's key name (or CURVE key), `local` (an admin client without
/// keys), or `scheduler` (time started or ended the campaign); and the campaign before it, from the campaign's
/// previous change (`nil` when it created the campaign), so that what changed can be told.
public struct ChangeRecord: Sendable, Hashable {
    public var change: Change
    public var actor: String
    public var before: Campaign?

    public init(change: Change, actor: String, before: Campaign? = nil) {
        self.change = change
        self.actor = actor
        self.before = before
    }
}

/// What reading a chunk of a creative found.
public enum CreativeChunkRead: Sendable, Equatable {
    /// No such creative.
    case notFound
    /// The creative exists, and the offset asked for is past its end.
    case pastEnd(CreativeFacts)
    /// Its facts and the bytes read.
    case bytes(CreativeFacts, [UInt8])
}

/// A serve share pacing sets on a campaign (`nil`: every device).
public struct CampaignShare: Sendable, Hashable {
    public var id: Int64
    public var share: Double?

    public init(id: Int64, share: Double?) {
        self.id = id
        self.share = share
    }
}

/// The actor the change log names for pacing's changes.
public let pacingActor = "pacing"

/// A write only the leader may make (pacing's shares), asked of a campaignd that does not lead: a leader that lost its
/// session, and whose duties have not stopped yet, must not write over the new leader's shares.
public struct NotLeading: Error, Sendable, CustomStringConvertible {
    public init() {}
    public var description: String { "this campaignd does not lead: only the leader writes pacing's shares" }
}
