import Foundation
import JSONRPC
import LaunchAdAPI
import LaunchAdDomain
import LaunchAdRuntime
import Logging
import ServiceLifecycle
import Locking
import ZMQRPC
import ZeroMQ

/// Ships the counts to campaignd every few seconds. A report keeps its id until campaignd takes it, so a report
/// sent again after a lost answer is counted once; ids grow with the clock, so they keep growing across restarts.
/// What campaignd has not taken is in the ``ReportFile`` before each report goes out, and on the way out; the
/// fingerprints of the events counted are in the ``EventJournal`` before their counts are in the file.
final class ReportShipper: Service {
    let configuration: DeliveryServiceConfiguration
    let context: ZMQContext
    let ledger: EventLedger
    let file: ReportFile
    let journal: EventJournal
    let curve: CurveClientOptions?
    /// With CURVE: seals each report as it goes (not in the file: what is saved stays valid if the keys change).
    let sealer: RecordSealer?
    let logger: Logger
    let interval: Duration
    /// Where the file is written (its fsyncs off the tasks' shared threads).
    private let disk = DispatchQueue(label: "deliveryd.report-save")
    /// Whether the last write of the file failed (it is said once, not every round).
    private let failing = Locked(false)

    init(configuration: DeliveryServiceConfiguration, context: ZMQContext, ledger: EventLedger, file: ReportFile,
         journal: EventJournal, curve: CurveClientOptions?, sealer: RecordSealer?, logger: Logger, interval: Duration) {
        self.configuration = configuration
        self.context = context
        self.ledger = ledger
        self.file = file
        self.journal = journal
        self.curve = curve
        self.sealer = sealer
        self.logger = logger
        self.interval = interval
    }

    /// What is being shipped: the report campaignd has not answered, and the last id used.
    struct Outbox: Sendable {
        var pending: EdgeReport?
        var lastId: Int64
        /// Whether the last report made left counts behind for want of room (not saved: the next report made says).
        var backlog = false
    }

    /// The most reports shipped one after another in a round while a backlog lasts (after campaignd was away).
    static let reportsPerRound = 20
    /// The most bytes of a report's JSON: a sync call's, less room for the call's envelope, the seal and the relays
    /// a report passes through (each adds its id).
    static let reportBudget = SyncAPI.maxCallBytes - 4096

    func run() async throws {
        var clientConfiguration = RPCClientConfiguration(endpoint: configuration.following.upstreamSync)
        clientConfiguration.curve = curve
        clientConfiguration.name = "reports"
        // Each round sends the pending report again itself, after writing what came since: a call that retried would
        // keep the round (and the file) waiting three timeouts while campaignd is away.
        clientConfiguration.retries = 0
        let client = try RPCClient(context: context, configuration: clientConfiguration)
        let (saved, setAside) = try file.load()
        if let setAside {
            logger.error("a report file that could not be used was set aside; the counts it may hold are not shipped",
                         metadata: ["file": "\(setAside.original.path)", "set_aside": "\(setAside.setAside.path)", "reason": "\(setAside.reason)"])
        }
        ledger.restore(saved.hourly(now: .now()), apps: saved.unsentApps ?? [])
        if saved.pending != nil || !saved.unsent.isEmpty || saved.unsentApps != nil {
            logger.info("counts from before the restart are shipped again", metadata: ["campaigns": "\(saved.unsent.count)",
                                                                                      "pending": "\(saved.pending?.reportId ?? 0)"])
        }
        var pending = saved.pending
        if let report = pending, Self.tooLargeToShip(report) {
            // Made before reports were split to fit a sync call: no call could carry it, so campaignd never took it.
            // Its counts go again in reports that fit (its id stays used: the next ones come after it).
            ledger.restore(ReportHours.hourly(of: report, receivedAt: .now()), apps: report.apps ?? [])
            pending = nil
            logger.warning("the pending report is too large for a sync call; its counts go again in reports that fit",
                           metadata: ["report_id": "\(report.reportId)"])
        }
        let start = Outbox(pending: pending, lastId: Self.plausible(lastId: saved.lastReportId, now: .now()))
        var outbox = await cancelWhenGracefulShutdown { () async -> Outbox in
            var outbox = start
            // Until the shutdown cancels a sleep (or a call, and then the next sleep): the way out below ships last.
            // While a backlog lasts, each report taken is followed at once by the next.
            while (try? await Task.sleep(for: self.interval)) != nil {
                for _ in 0..<Self.reportsPerRound {
                    guard await self.ship(&outbox, client: client, timeout: .seconds(3)), outbox.backlog else { break }
                }
            }
            return outbox
        }
        // On the way out (no report comes in any more): what is pending, then what came since, and a backlog's next
        // reports; what campaignd does not take stays in the file for the next start.
        for round in 0..<Self.reportsPerRound {
            guard await ship(&outbox, client: client, timeout: .seconds(1)), round == 0 || outbox.backlog else { break }
        }
        if outbox.pending != nil || !ledger.unsent.isEmpty || !ledger.unsentApps.isEmpty {
            if failing.withLock({ $0 }) {
                logger.error("counts not shipped before exit are lost: the cache folder refuses the report file", metadata: ["file": "\(file.url.path)"])
            } else {
                logger.warning("counts not shipped before exit are kept in the cache folder", metadata: ["file": "\(file.url.path)"])
            }
        }
        await client.close()
    }

    /// One round: the counts gathered so far become a report unless one is pending, both are written to the file,
    /// and the report goes out once they are. Returns whether campaignd answered it (`true` too when there was
    /// nothing to send).
    private func ship(_ outbox: inout Outbox, client: RPCClient, timeout: Duration) async -> Bool {
        if outbox.pending == nil {
            let hourly = ledger.drain()
            let apps = ledger.drainApps()
            if !hourly.isEmpty || !apps.isEmpty {
                let id = Self.nextId(after: outbox.lastId, now: .now())
                var report = EdgeReport(edgeId: configuration.following.followerId, reportId: id, counts: [], hourly: [],
                                        apps: apps.isEmpty ? nil : apps, region: configuration.following.region)
                // What does not fit one sync call waits for the next report (a larger call would never get through).
                let (taken, rest) = Self.fitting(hourly, into: report, budget: Self.reportBudget)
                if !rest.isEmpty { ledger.restore(rest) }
                report.counts = HourlyCount.totals(taken)
                report.hourly = taken
                outbox.pending = report
                outbox.lastId = id
                outbox.backlog = !rest.isEmpty
            }
        }
        // On disk before it goes: a report campaignd may have taken is sent again under its own id after a restart.
        // While the file cannot be written, nothing goes: a start that read the older file would ship these counts
        // again, under a new id.
        guard await save(outbox) else { return false }
        guard let report = outbox.pending else { return true }
        do {
            let answer = try await client.call(SyncAPI.report, sealer?.sealed(report) ?? report, timeout: timeout)
            outbox.pending = nil
            if !answer.accepted && answer.lastReportId > report.reportId {
                // Our id was behind campaignd's (the clock went back): the counts were not taken; send them again.
                outbox.lastId = Self.plausible(lastId: answer.lastReportId, now: .now())
                if outbox.lastId != answer.lastReportId {
                    logger.warning("campaignd answered a last report id beyond the ids it takes; ids go on from the clock",
                                   metadata: ["last_report_id": "\(answer.lastReportId)"])
                }
                // A report sent without its hours (campaignd refused them as too old) gives its totals back under this hour.
                ledger.restore(ReportHours.hourly(of: report, receivedAt: .now()), apps: report.apps ?? [])
            }
            await save(outbox)
            return true
        } catch let error as JSONRPCError where error.code == APIError.edgeKeyMismatch.code || error.code == APIError.sealRefused.code {
            // The counts stay (nothing is lost) until the keys are put right; said at each try, as they wait.
            logger.warning("campaignd refuses this edge's counts: its key is listed for another edge id, or their seal does not verify; they wait",
                           metadata: ["error": "\(error.message)"])
            return false
        } catch let error as JSONRPCError where error.code == JSONRPCError.invalidParamsCode {
            // An hour campaignd does not take (older than its stats retention, after long away from it): the same
            // report, under the same id, goes again without its hours, and campaignd files its totals under the hour
            // it receives them, as from an older edge, rather than the counts waiting for good. Anything else is
            // refused again as it is: said at each try, as it waits.
            let field = error.data?["field"]?.stringValue ?? ""
            if field.hasPrefix("hourly"), report.hourly != nil {
                outbox.pending?.hourly = nil
                logger.warning("campaignd refuses this report's hours; its totals go again without them", metadata: ["error": "\(error.message)"])
            } else if field.hasPrefix("apps"), let apps = report.apps {
                // The funnel's counts have no totals to fall back on: what campaignd refuses is let go, rather than
                // holding the campaigns' counts back for good, and only that: the rest goes again.
                outbox.pending?.apps = Self.keptApps(apps, refusedField: field)
                logger.warning("campaignd refuses some of this report's counts by app; they are dropped and the rest goes again",
                               metadata: ["error": "\(error.message)"])
            } else if field == "reportId", let refused = outbox.pending?.reportId {
                // An id beyond those campaignd takes (made while this edge's clock ran ahead): the report was not taken,
                // so it goes again under an id from the clock as it is now (still refused while the clock is ahead).
                let id = Self.nextId(after: 0, now: .now())
                outbox.pending?.reportId = id
                outbox.lastId = id
                logger.warning("campaignd refuses this report's id; it goes again under an id from the clock",
                               metadata: ["refused": "\(refused)", "report_id": "\(id)"])
            } else {
                logger.warning("campaignd refuses this edge's report; its counts wait", metadata: ["error": "\(error.message)"])
            }
            return false
        } catch {
            logger.debug("could not ship counts yet", metadata: ["error": "\(error)"])
            return false
        }
    }

    /// The counts by app that go again after campaignd refused `refusedField` of them: without the item it names,
    /// and, when it refused that item's hour (older than its stats retention), without every item as old or older
    /// (they come oldest first: each would be refused in turn), or, for an hour ahead of `now`, every item as far
    /// ahead; none when the refusal names no item.
    static func keptApps(_ apps: [AppHourlyCount], refusedField field: String, now: Timestamp = .now()) -> [AppHourlyCount]? {
        guard field.hasPrefix("apps["), let close = field.firstIndex(of: "]"),
              let index = Int(field[field.index(field.startIndex, offsetBy: 5)..<close]), apps.indices.contains(index)
        else { return nil }
        let refused = apps[index]
        let kept: [AppHourlyCount]
        if field.hasSuffix(".hour") {
            kept = refused.hour > now ? apps.filter { $0.hour < refused.hour } : apps.filter { $0.hour > refused.hour }
        } else {
            kept = apps.enumerated().filter { $0.offset != index }.map(\.element)
        }
        return kept.isEmpty ? nil : kept
    }

    /// Whether `report` can never have gone in one sync call: even in the shortest call (an id of one digit, no seal)
    /// it is over the limit. (One that may have gone, campaignd may have taken: it keeps its id.)
    static func tooLargeToShip(_ report: EdgeReport) -> Bool {
        let shortestCall = #"{"jsonrpc":"2.0","id":1,"method":"edge.report","params":}"#.utf8.count
        return ((try? JSONValueEncoder().encodeJSON(report))?.count ?? 0) + shortestCall > SyncAPI.maxCallBytes
    }

    /// `hourly` split into the counts that a report made of `base` (its other members, `counts` and `hourly` empty)
    /// and of them takes in at most `budget` bytes of JSON, the oldest hours first, and the rest (none when all fit).
    /// Each count is measured as written; each campaign's total, which the counts taken add to `counts`, as the
    /// largest it could be. One count at least is taken, so that every report moves the counts on.
    static func fitting(_ hourly: [HourlyCount], into base: EdgeReport, budget: Int) -> (taken: [HourlyCount], rest: [HourlyCount]) {
        let encoder = JSONValueEncoder()
        func size(_ value: some Encodable) -> Int { ((try? encoder.encodeJSON(value))?.count ?? budget) + 1 }
        let most = Int64.max, reasons = ReportReasons(inappropriate: most, misleading: most, repetitive: most, other: most)
        let sorted = hourly.sorted { ($0.hour.milliseconds, $0.id, $0.sha256 ?? "") < ($1.hour.milliseconds, $1.id, $1.sha256 ?? "") }
        var used = size(base)
        var campaigns: Set<Int64> = []
        var taken = 0
        while taken < sorted.count {
            let count = sorted[taken]
            var more = size(count)
            if !campaigns.contains(count.id) {
                more += size(CampaignStats(id: count.id, impressions: most, clicks: most, skips: most, reasons: reasons))
            }
            guard taken == 0 || used + more <= budget else { break }
            used += more
            campaigns.insert(count.id)
            taken += 1
        }
        return (Array(sorted[..<taken]), Array(sorted[taken...]))
    }

    /// `lastId` (read from the file, or answered by campaignd), or, when it is beyond the ids campaignd takes now
    /// (``PeerNumbers/maxReportId(now:)``: a file or a campaignd from before the bound, or a forged answer), the
    /// clock's milliseconds: ids go on from the clock, and no `+ 1` can pass `Int64.max`.
    static func plausible(lastId: Int64, now: Timestamp) -> Int64 {
        lastId <= PeerNumbers.maxReportId(now: now) ? lastId : now.milliseconds
    }

    /// The id of the next report: the clock's milliseconds, or one more than `lastId` when the clock went back.
    static func nextId(after lastId: Int64, now: Timestamp) -> Int64 {
        let (next, overflow) = lastId.addingReportingOverflow(1)
        return overflow ? now.milliseconds : max(next, now.milliseconds)
    }

    /// Writes the fingerprints of the events counted since the last save to the journal, then the outbox and the
    /// counts gathered since to the file, on the disk's queue. When the journal cannot take them, the file is left
    /// as it was, so that no count is on disk without its event. Returns whether both were written.
    @discardableResult
    private func save(_ outbox: Outbox) async -> Bool {
        let (unsent, apps, fingerprints) = ledger.takeForSave()
        let body = ReportFile.Body(lastReportId: outbox.lastId, pending: outbox.pending, unsent: unsent, apps: apps)
        // Nothing came since the last write that succeeded (the usual round of an edge no app reports to): no hop to
        // the disk's queue, which would wake a thread for nothing.
        if fingerprints.isEmpty && file.holds(body) { return true }
        let written: Result<Void, any Error> = await disk.perform {
            Result {
                do { try self.journal.append(fingerprints) } catch { self.ledger.putBack(fingerprints: fingerprints); throw error }
                try self.file.save(body)
            }
        }
        let error: (any Error)? = if case .failure(let error) = written { error } else { nil }
        let changed = failing.withLock { failing in
            defer { failing = error != nil }
            return failing != (error != nil)
        }
        if changed, let error {
            logger.error("cannot write the report file or the event ids; counts wait in memory and are not shipped until they can be written",
                         metadata: ["error": "\(error)"])
        } else if changed {
            logger.info("the report file is written again")
        }
        return error == nil
    }
}
