import CampaignStore
import Foundation
import LaunchAdAPI
import LaunchAdDomain
import LaunchAdRuntime
import Locking
import Logging
import Synchronization

/// campaignd's pacing loop (DESIGN, "Delivery goals and pacing"; proto-docs/pacing.md): every interval it reads what
/// the edges reported delivered for each live campaign with a goal, in the goal's period, asks the
/// ``PacingController`` for a serve share, and writes the shares that moved as changes by the actor `pacing`, which
/// the update stream carries to every edge like any other. It runs among the leader's duties, so one campaignd paces.
final class PacingService: Sendable {
    let store: any Store
    let clock: WallClock
    let interval: Duration
    let controller: PacingController
    /// The edges' reports as this campaignd receives them: the lag follows their slowest interval.
    let reports: ReportCadence?
    let logger: Logger
    /// What the controller remembers of each campaign between ticks, within one leadership term: the service outlives
    /// each `run()`, and what it measured before another leader paced is stale (the store's share is the word).
    private let memories = Locked<[Int64: PacingMemory]>([:])
    /// The last outcome of each campaign, for `campaign.stats`.
    private let outcomes = Locked<[Int64: PacingOutcome]>([:])
    /// Ticks completed since the process started (a test waits on it rather than on time).
    private let completedTicks = Atomic<Int>(0)

    /// deliveryd's `--report-interval` by default (DESIGN): the lag's assumption until reports were observed.
    static let defaultReportSeconds: Double = 10

    init(store: any Store, clock: @escaping WallClock, interval: Duration, reports: ReportCadence? = nil, logger: Logger) {
        self.store = store
        self.clock = clock
        self.interval = interval
        self.reports = reports
        let pacing = Self.seconds(interval)
        // Until reports were observed, DESIGN's default report interval; a share holds for a tick, and as long again
        // for its way to the edges; a published share at most once a tick (one a hair early still counts).
        controller = PacingController(lagSeconds: Self.lagSeconds(reportSeconds: Self.defaultReportSeconds), controlSeconds: 2 * pacing,
                                      minimumSpacingSeconds: 0.9 * pacing)
        self.logger = logger
    }

    /// A duration in seconds.
    static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    /// How late a count may reach the sum: an edge's counts wait up to its report interval, half as long again for
    /// one that ships late or through a relay.
    static func lagSeconds(reportSeconds: Double) -> Double {
        1.5 * reportSeconds
    }

    /// The ticks completed so far.
    var ticks: Int { completedTicks.load(ordering: .acquiring) }

    /// What the controller remembers of a campaign, if anything.
    func memory(of id: Int64) -> PacingMemory? {
        memories.withLock { $0[id] }
    }

    /// Ticks every interval until cancelled; a failing tick is logged and the next one tries again. Each run is a
    /// leadership term: it starts from the store alone, remembering nothing of an earlier term.
    func run() async throws {
        forget()
        while !Task.isCancelled {
            do {
                _ = try await tick()
            } catch is CancellationError {
                return
            } catch {
                logger.error("pacing failed; retrying", metadata: ["error": "\(error)"])
            }
            try await Task.sleep(for: interval)
        }
    }

    /// Forgets what the controller measured and answered: the next tick starts from the store.
    func forget() {
        memories.withLock { $0 = [:] }
        outcomes.withLock { $0 = [:] }
    }

    /// How old a memory may be and still be used: three intervals, and never under 30 s (a loaded host delays a tick
    /// of a short interval by seconds, and the controller stretches its spans for a late tick rather than start over).
    var staleSeconds: Double { max(30, 3 * Self.seconds(interval)) }

    /// One round: every live campaign with a goal gets its share; those that moved are written. Returns the changes.
    @discardableResult
    func tick() async throws -> [Change] {
        let now = clock()
        var controller = self.controller
        if let observed = reports?.slowestInterval(now: now) {
            controller.lagSeconds = Self.lagSeconds(reportSeconds: observed)
        }
        let campaigns = try await store.campaigns(app: nil, state: .live).filter { $0.goal != nil }
        var zones: [String: DayZone] = [:]
        var shares: [CampaignShare] = []
        for campaign in campaigns {
            guard let goal = campaign.goal else { continue }
            let (window, delivered) = try await period(of: campaign, goal: goal, now: now, zones: &zones)
            let input = PacingInput(goal: goal.impressions, pacing: campaign.pacing ?? .even, window: window, delivered: delivered, now: now,
                                    published: campaign.share ?? 1)
            // A memory older than a few intervals is of another time (a pause in the loop): measured again.
            let memory = memories.withLock { $0[campaign.id] }.flatMap { $0.at.seconds(until: now) <= staleSeconds ? $0 : nil }
            let (outcome, kept) = controller.tick(input, memory: memory)
            memories.withLock { $0[campaign.id] = kept }
            outcomes.withLock { $0[campaign.id] = outcome }
            // A campaign never paced keeps no share while it serves everyone: no change for nothing.
            let share: Double? = campaign.share == nil && outcome.share == 1 ? nil : outcome.share
            if share != campaign.share { shares.append(CampaignShare(id: campaign.id, share: share)) }
        }
        // What it remembers of campaigns no longer live with a goal goes (a goal back later measures again).
        let paced = Set(campaigns.map(\.id))
        memories.withLock { $0 = $0.filter { paced.contains($0.key) } }
        outcomes.withLock { $0 = $0.filter { paced.contains($0.key) } }
        let changes = shares.isEmpty ? [] : try await store.pace(shares, now: now)
        completedTicks.add(1, ordering: .releasing)
        for change in changes {
            logger.info("paced a campaign", metadata: [LogField.campaignId: "\(change.id)", "share": "\(change.campaign.share ?? 1)",
                                                       "seq": "\(change.seq)", "lag_seconds": "\(controller.lagSeconds)"])
        }
        return changes
    }

    /// The forecast line of each live campaign with a goal among `campaigns`, for `campaign.stats`: the period and
    /// what was delivered in it read now; the projection from this process's last tick when it paces (the leader),
    /// else delivered so far carried on at the same rate.
    func stats(of campaigns: [Campaign], now: Timestamp) async throws -> [PacingStats] {
        var lines: [PacingStats] = []
        var zones: [String: DayZone] = [:]
        for campaign in campaigns where campaign.state == .live {
            guard let goal = campaign.goal else { continue }
            let (window, delivered) = try await period(of: campaign, goal: goal, now: now, zones: &zones)
            let elapsed = Double(max(1, now.milliseconds - window.start.milliseconds)) / 1000
            let expected = Double(goal.impressions) * min(1, elapsed / window.seconds)
            let last = outcomes.withLock { $0[campaign.id] }
            let share = campaign.share ?? 1
            let completed = last?.completed ?? (delivered >= goal.impressions)
            let carried = Int(min(Double(goal.impressions), Double(delivered) * window.seconds / elapsed))
            lines.append(PacingStats(id: campaign.id, goal: goal, pacing: campaign.pacing ?? .even, from: window.start, to: window.end,
                                     delivered: delivered, pace: expected > 0 ? Double(delivered) / expected : 1, share: share,
                                     projected: completed ? max(delivered, goal.impressions) : last?.projected ?? carried,
                                     completed: completed))
        }
        return lines
    }

    /// The goal's window at `now` and what was delivered in it; `zones` keeps each app's time zone once read.
    func period(of campaign: Campaign, goal: CampaignGoal, now: Timestamp, zones: inout [String: DayZone]) async throws -> (PacingWindow, Int) {
        let zone: DayZone
        if let known = zones[campaign.app] {
            zone = known
        } else {
            zone = try await store.app(campaign.app).flatMap { DayZone(identifier: $0.timezone) } ?? .utc
            zones[campaign.app] = zone
        }
        let window = Self.window(of: campaign, goal: goal, at: now, zone: zone)
        return (window, try await delivered(campaign.id, goal: goal, window: window, now: now))
    }

    /// The goal's window around `now`: the flight, or the day in the app's time zone (cut to the flight).
    static func window(of campaign: Campaign, goal: CampaignGoal, at now: Timestamp, zone: DayZone) -> PacingWindow {
        switch goal.per {
        case .campaign:
            return PacingWindow(start: campaign.startsAt, end: campaign.endsAt)
        case .day:
            return PacingWindow(start: max(zone.startOfDay(containing: now), campaign.startsAt),
                                end: min(zone.endOfDay(containing: now), campaign.endsAt))
        }
    }

    /// What the edges reported delivered in the window: the campaign's total for a flight; for a day, its hourly
    /// counts from the hour the day starts in (a zone half an hour off UTC counts that first half hour too).
    func delivered(_ id: Int64, goal: CampaignGoal, window: PacingWindow, now: Timestamp) async throws -> Int {
        switch goal.per {
        case .campaign:
            return Int(try await store.stats(id: id).first?.impressions ?? 0)
        case .day:
            // From the hour the window starts in: the counts are kept by the hour (a flight starting at 10:20 has its
            // first counts under 10:00).
            let hour = HourlyCount.hourMilliseconds
            let from = Timestamp(milliseconds: window.start.milliseconds / hour * hour)
            let query = StatsQuery(id: id, from: from, to: now.adding(seconds: 3600), by: .hour, byCreative: false, byRegion: false)
            return Int(clamping: try await store.statsSeries(query).reduce(Int64(0)) { $0 &+ $1.impressions })
        }
    }
}
