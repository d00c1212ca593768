import Foundation

/// The SDK: what an app holds from start to exit. `launch(_:openedBy:)` decides under the configured policy,
/// `refresh()` fills and prunes the cache, `record(_:of:launch:)` and `flushReports()` carry the launches' funnel,
/// impressions, clicks and skips to the edge, `suppress(for:)` holds ads back, `cacheSize()` and
/// `clearCache(keeping:)` answer for the disk. Every time it reads (validity, backoff, sessions, suppression) comes
/// from its ``LaunchAdClock``.
public actor LaunchAdClient {
    public nonisolated let configuration: LaunchAdConfiguration
    public nonisolated let clock: any LaunchAdClock
    let connection: EdgeConnection
    let cache: AdCache
    let reports: ReportQueue
    /// The ad last shown (its impression recorded, ``record(_:of:launch:)``): what ``whyThisAd()`` asks about. An
    /// ad a launch chose but whose media never appeared is not one.
    public private(set) var currentAd: LaunchAd?
    /// Work a launch started that goes on after its decision (the answer updating the cache).
    private var background: [Task<Void, Never>] = []
    /// Until when ads are held back (``suppress(for:)``), saved in `suppressed.json` in the state folder; read
    /// without the actor (``excluded(openedBy:)``), so a lock of its own.
    private let suppressedUntil = SuppressionTime()
    private let suppressionFile: URL

    /// Opens the state folder (made if missing) and what an earlier run left in it: the cache and the report queue.
    public init(configuration: LaunchAdConfiguration, clock: any LaunchAdClock = SystemClock()) throws {
        self.configuration = configuration
        self.clock = clock
        try FileManager.default.createDirectory(at: configuration.stateDirectory, withIntermediateDirectories: true)
        connection = EdgeConnection(edge: configuration.edge)
        cache = try AdCache(folder: configuration.stateDirectory.appendingPathComponent("cache"), maxBytes: configuration.cacheBytes)
        reports = ReportQueue(file: configuration.stateDirectory.appendingPathComponent("reports.json"))
        suppressionFile = configuration.stateDirectory.appendingPathComponent("suppressed.json")
        suppressedUntil.set((try? Data(contentsOf: suppressionFile)).flatMap { try? JSONDecoder().decode(Suppression.self, from: $0) }?.until)
    }

    // MARK: Launch rules

    /// Why a launch opened `openedBy` shows no ad whatever the edge says (``EndReason/notForOpening``, or
    /// ``EndReason/suppressed`` while ``suppress(for:)`` holds), or nil: known at once, before any cover goes up.
    public nonisolated func excluded(openedBy: LaunchOpening) -> EndReason? {
        guard configuration.showOn.contains(openedBy) else { return .notForOpening }
        if let until = suppressedUntil.get(), clock.now() < until { return .suppressed }
        return nil
    }

    /// What `suppressed.json` holds.
    private struct Suppression: Codable {
        /// By the SDK's clock (Codable's own date: seconds since 2001).
        var until: Date
    }

    /// Holds ads back for `seconds` from now (after a purchase, a permission dialog, another full-screen ad): a
    /// launch until then shows none, asks nothing and reports nothing (``EndReason/suppressed``). Saved in the state
    /// folder, so it holds across a restart; 0 lifts it. A later call replaces an earlier one.
    public func suppress(for seconds: Double) throws {
        guard seconds.isFinite, seconds >= 0 else { throw InvalidSuppression(seconds: seconds) }
        if seconds == 0 {
            suppressedUntil.set(nil)
            if FileManager.default.fileExists(atPath: suppressionFile.path) { try FileManager.default.removeItem(at: suppressionFile) }
            return
        }
        let until = clock.now().addingTimeInterval(seconds)
        try JSONEncoder().encode(Suppression(until: until)).write(to: suppressionFile, options: .atomic)
        suppressedUntil.set(until)
    }

    /// A suppression that is not a number of seconds from 0 up.
    public struct InvalidSuppression: Error, CustomStringConvertible {
        public let seconds: Double
        public var description: String { "suppress(for:) takes seconds from 0 up, not \(seconds)" }
    }

    // MARK: The cache

    /// The bytes the SDK's cache takes on disk: creatives, partial downloads and the manifest.
    public func cacheSize() async -> Int { await cache.bytesOnDisk() }

    /// Removes every cached creative and choice (and partial download) except those of the campaigns `keeping`:
    /// a launch then shows none of the others until the edge answers them again.
    public func clearCache(keeping: Set<Int64> = []) async throws {
        try await cache.clear(keeping: keeping)
    }

    // MARK: Launch

    /// Decides what this launch shows, under the configured policy, for a launch opened `openedBy`:
    ///
    /// - `revalidate` asks the edge within `revalidateBudget`. An answer in time rules: what it revoked is gone; the
    ///   ad it chose shows if its creative is on disk, or, forced (`showMoment` 0), if it arrives within
    ///   `waitBudget`; the cached choice shows only while the answer still chooses it (the cached version of a
    ///   campaign the answer chose in a newer one whose creative is not here yet); anything else waits for a later
    ///   launch, its creative fetched meanwhile. No answer in time: the cached choice, as cache first.
    /// - `cacheFirst` shows the cached choice at once (or none) while this launch's answer updates the cache.
    /// - `fresh` shows the edge's answer if it and its creative come within `waitBudget`, otherwise
    ///   `.noAd(.timeout)`.
    ///
    /// A cached choice older than `maxCachedAge` never shows without an answer in time. A launch opened in a way
    /// `showOn` leaves out, or while ``suppress(for:)`` holds, shows nothing and asks nothing. The others queue a
    /// `request` report, and `noAd` when the edge (or, cache first, the cache) had no ad or `timeout` when no answer
    /// came in time or none could be had (the edge unreachable), when they show nothing. The launch's work (its query, its creative)
    /// ends within twice `waitBudget` of its start (``settle()`` waits for it, for tests).
    public func launch(_ kind: LaunchKind = .cold, openedBy: LaunchOpening = .userTap) async -> LaunchDecision {
        await decide(kind, openedBy: openedBy, launchId: UUID().uuidString.lowercased())
    }

    /// ``launch(_:openedBy:)`` with the id its funnel reports take (the session's impression, click and skip share it).
    func decide(_ kind: LaunchKind, openedBy: LaunchOpening, launchId: String) async -> LaunchDecision {
        // The app's own rules exclude these launches: they are not ad requests, so nothing is asked or reported.
        if let reason = excluded(openedBy: openedBy) { return .noAd(reason) }
        _ = try? await report(.request, launch: launchId, campaignId: nil)
        let deadline = ContinuousClock.now + .seconds(min(configuration.requestTimeout, 2 * configuration.waitBudget))
        let (decision, funnel) = switch configuration.policy {
        case .revalidate: await revalidate(kind, deadline: deadline)
        case .cacheFirst: await cacheFirst(kind, deadline: deadline)
        case .fresh: await fresh(kind, deadline: deadline)
        }
        if let funnel { _ = try? await report(funnel, launch: launchId, campaignId: nil) }
        return decision
    }

    private func cacheFirst(_ kind: LaunchKind, deadline: ContinuousClock.Instant) async -> (LaunchDecision, ReportKind?) {
        let ad = await cachedAd(kind).flatMap { $0.withinMaxAge ? $0.ad : nil }
        background.append(Task { _ = try? await self.ask(kind, deadline: deadline) })
        return ad.map { (.show($0), nil) } ?? (.noAd(.none), .noAd)
    }

    private func fresh(_ kind: LaunchKind, deadline: ContinuousClock.Instant) async -> (LaunchDecision, ReportKind?) {
        let work = Task { try await self.ask(kind, deadline: deadline) }
        background.append(Task { _ = try? await work.value })
        switch await Self.within(seconds: configuration.waitBudget, work) {
        case nil: return (.noAd(.timeout), .timeout)
        case .success(let ad?): return (.show(ad), nil)
        case .success(nil): return (.noAd(.none), .noAd)
        // No answer (the edge unreachable, or what came could not be read): not a want of ads, so the funnel
        // counts it with the launches that had no answer in time.
        case .failure: return (.noAd(.none), .timeout)
        }
    }

    private func revalidate(_ kind: LaunchKind, deadline: ContinuousClock.Instant) async -> (LaunchDecision, ReportKind?) {
        // What would show without an answer, read before the answer changes the cache (a newer version of the
        // campaign replaces its presentation, not yet its creative).
        let cached = await cachedAd(kind)
        let fallback = cached.flatMap { $0.withinMaxAge ? $0.ad : nil }
        let query = Task { try await self.query(kind, deadline: deadline) }
        let answered: QueryAnswer
        switch await Self.within(seconds: configuration.revalidateBudget, query) {
        case nil:
            // Late: the answer, when it comes, is cached for the next launch.
            background.append(Task {
                guard let answer = try? await query.value, let choice = try? await self.apply(answer, kind) else { return }
                _ = try? await self.fetch(choice, deadline: deadline)
            })
            return fallback.map { (.show($0), nil) } ?? (.noAd(.timeout), .timeout)
        case .failure:
            // No answer: as late as one that never comes, for the funnel too (not a want of ads).
            return fallback.map { (.show($0), nil) } ?? (.noAd(.none), .timeout)
        case .success(let answer):
            answered = answer
        }
        guard let choice = try? await apply(answered, kind) else { return (.noAd(.none), .noAd) }
        if await cache.holds(choice.presentation.sha256), let ad = await fetched(choice, source: .fresh) {
            return (.show(ad), nil)
        }
        let fetch = Task { try await self.fetch(choice, deadline: deadline) }
        background.append(Task { _ = try? await fetch.value })
        // Shown now though not on disk: forced (its creative being in `cached` is the other reason for 0, handled above).
        if choice.showNow {
            if case .success(let ad?) = await Self.within(seconds: configuration.waitBudget, fetch) { return (.show(ad), nil) }
            return (.noAd(.timeout), .timeout)
        }
        if let cached = cached?.ad, cached.campaignId == choice.id { return (.show(cached), nil) }
        // The edge has an ad, shown from a later launch once its creative is here: not a `noAd`.
        return (.noAd(.none), nil)
    }

    /// Waits for the work launches started in the background (the cache's update from their answers).
    public func settle() async {
        let tasks = background
        background = []
        for task in tasks { await task.value }
    }

    /// What a process that ends with its launch does last, within `seconds` at most: waits for the launch's work in
    /// the background, then sends the reports. What does not fit waits on disk for the next run.
    func finish(within seconds: Double) async {
        let limit = ContinuousClock.now + .seconds(seconds)
        _ = await Self.within(seconds: seconds, Task { await self.settle() })
        _ = await flushReports(timeout: Self.seconds(until: limit))
    }

    /// The ad the latest answer chose for this kind of launch, if it is still valid by the device's clock (started,
    /// not past `expiresAt`, not revoked or paused since) and its creative is on disk; for a hot start, only after as
    /// long in the background as the edge showed it needs. `withinMaxAge`: the answer that chose it is younger than
    /// `maxCachedAge` (without it, the ad shows only if this launch's answer chooses it again).
    func cachedAd(_ kind: LaunchKind) async -> (ad: LaunchAd, withinMaxAge: Bool)? {
        let now = clock.now()
        let manifest = await cache.manifest
        guard let id = manifest.next[kind.key], let campaign = manifest.campaigns[id], let presentation = campaign.presentation,
              await cache.holds(presentation.sha256), campaign.expiresAt > now, (campaign.startsAt ?? now) <= now
        else { return nil }
        if case .hot(let seconds) = kind {
            guard let least = campaign.hotAfterSeconds, seconds >= least else { return nil }
        }
        try? await cache.touch(presentation.sha256, at: now)
        let young = campaign.answeredAt.map { now.timeIntervalSince($0) <= configuration.maxCachedAge } ?? false
        return (await ad(campaign, presentation, source: .cache), young)
    }

    /// What an answer chose: the campaign, how to show it, where its creative is, and whether to show it at this
    /// launch (`showMoment` 0, or `forced` from an edge that wrote the moments there).
    struct Choice: Sendable {
        var id: Int64
        var presentation: CacheManifest.Presentation
        var url: URL
        var size: Int
        var showNow: Bool
    }

    /// Asks the edge for this launch, applies the answer to the cache and returns the answered ad once its creative
    /// is on disk (nil: the edge had none).
    func ask(_ kind: LaunchKind, deadline: ContinuousClock.Instant) async throws -> LaunchAd? {
        let answer = try await query(kind, deadline: deadline)
        guard let choice = try await apply(answer, kind) else { return nil }
        return try await fetch(choice, deadline: deadline)
    }

    /// `launch.query` for this launch, within what is left until `deadline`.
    private func query(_ kind: LaunchKind, deadline: ContinuousClock.Instant) async throws -> QueryAnswer {
        try await connection.call("launch.query", queryParams(kind), timeout: Self.seconds(until: deadline))
    }

    /// Applies an answer to the cache: revoked campaigns and their creatives go; the answered campaign is noted as
    /// the next launch's (its presentation, window and answer time). Returns what it chose (nil: no ad, or an
    /// answer without what showing needs).
    private func apply(_ answer: QueryAnswer, _ kind: LaunchKind) async throws -> Choice? {
        try await cache.revoke(answer.revoked)
        let now = clock.now()
        guard answer.hasAd, let id = answer.id, let creative = answer.creative, let imgUrl = answer.imgUrl,
              let url = URL(string: imgUrl), let expiresText = answer.expiresAt, let expiresAt = RFC3339.date(expiresText)
        else {
            try await cache.update { $0.next[kind.key] = nil }
            return nil
        }
        let presentation = CacheManifest.Presentation(
            version: answer.version ?? 0, sha256: creative.sha256, contentType: creative.contentType, countdown: answer.countdown ?? 3,
            skippable: answer.skippable ?? true, skipAfter: answer.skipAfter ?? 0, jumpType: answer.jumpType ?? "none",
            jumpValue: answer.jumpValue, forced: answer.forced ?? false, width: creative.width, height: creative.height,
            display: answer.display.flatMap(AdDisplay.init(rawValue:)), clickArea: answer.clickArea.flatMap(AdClickArea.init(rawValue:)),
            videoSound: answer.videoSound, advertiser: answer.advertiser, paidBy: answer.paidBy, durationMs: creative.durationMs)
        try await cache.update { manifest in
            var campaign = manifest.campaigns[id]
                ?? .init(id: id, startsAt: nil, expiresAt: expiresAt, creatives: [], presentation: nil, answeredAt: nil, hotAfterSeconds: nil)
            if campaign.presentation?.version != presentation.version { campaign.hotAfterSeconds = nil }
            campaign.expiresAt = expiresAt
            campaign.presentation = presentation
            campaign.answeredAt = now
            if !campaign.creatives.contains(creative.sha256) { campaign.creatives.append(creative.sha256) }
            if case .hot(let seconds) = kind { campaign.hotAfterSeconds = min(campaign.hotAfterSeconds ?? seconds, seconds) }
            manifest.campaigns[id] = campaign
            manifest.next[kind.key] = id
        }
        return Choice(id: id, presentation: presentation, url: url, size: creative.size,
                      showNow: answer.showMoment == .now || presentation.forced)
    }

    /// Fetches a choice's creative (unless on disk) within what is left until `deadline`; the ad once it is there
    /// and its campaign still valid.
    private func fetch(_ choice: Choice, deadline: ContinuousClock.Instant) async throws -> LaunchAd? {
        let sha256 = choice.presentation.sha256
        try await cache.fetch(sha256: sha256, from: choice.url, size: choice.size, contentType: choice.presentation.contentType,
                              now: clock.now(), timeout: Self.seconds(until: deadline))
        return await fetched(choice, source: .fresh)
    }

    /// The chosen ad, its creative on disk (marked used now), if its campaign is still valid.
    private func fetched(_ choice: Choice, source: LaunchAd.Source) async -> LaunchAd? {
        try? await cache.touch(choice.presentation.sha256, at: clock.now())
        guard let campaign = await cache.manifest.campaigns[choice.id], campaign.expiresAt > clock.now() else { return nil }
        return await ad(campaign, choice.presentation, source: source)
    }

    /// Seconds from now until `deadline` (a little at least: a call given no time at all fails at once).
    private static func seconds(until deadline: ContinuousClock.Instant) -> Double {
        let left = (deadline - ContinuousClock.now).components
        return max(0.001, Double(left.seconds) + Double(left.attoseconds) / 1e18)
    }

    private func ad(_ campaign: CacheManifest.Campaign, _ presentation: CacheManifest.Presentation, source: LaunchAd.Source) async -> LaunchAd {
        let jump = presentation.jumpType == "none" ? nil : presentation.jumpValue.map { LaunchAd.Jump(type: presentation.jumpType, value: $0) }
        return LaunchAd(campaignId: campaign.id, version: presentation.version, sha256: presentation.sha256,
                        file: await cache.file(presentation.sha256), contentType: presentation.contentType,
                        countdown: presentation.countdown, skippable: presentation.skippable, skipAfter: presentation.skipAfter,
                        jump: jump, forced: presentation.forced, expiresAt: campaign.expiresAt, source: source,
                        pixelWidth: presentation.width ?? 1, pixelHeight: presentation.height ?? 1,
                        display: presentation.display ?? .full, clickArea: presentation.clickArea ?? .button,
                        videoSound: presentation.videoSound ?? false, durationMs: presentation.durationMs ?? 0,
                        advertiser: presentation.advertiser, paidBy: presentation.paidBy)
    }

    private func queryParams(_ kind: LaunchKind) async -> QueryParams {
        var launchType: String?, background: Int?
        if case .hot(let seconds) = kind { (launchType, background) = ("hot", seconds) }
        return QueryParams(app: configuration.app, platform: configuration.platform, appVersion: configuration.appVersion,
                           region: configuration.region, locale: configuration.locale, deviceId: configuration.deviceId,
                           screen: screen, launchType: launchType, backgroundSeconds: background, cached: await cache.held)
    }

    private nonisolated var screen: ScreenSize? { configuration.screen.map { ScreenSize(width: $0.width, height: $0.height) } }

    /// `work`'s result, or nil once `seconds` of real time have passed (the work goes on).
    static func within<T: Sendable, Failure: Error>(seconds: Double, _ work: Task<T, Failure>) async -> Result<T, Failure>? {
        try? await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Result<T, Failure>?, any Error>) in
            let once = Once(continuation)
            Task { once.resume(returning: await work.result) }
            DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { once.resume(returning: nil) }
        }
    }

    // MARK: Why this ad

    /// Why this device was shown the current ad (the last one whose impression was recorded): ``whyThisAd(_:)`` of
    /// it, or ``NoAdShown``.
    public func whyThisAd() async throws -> AdWhy {
        guard let currentAd else { throw NoAdShown() }
        return try await whyThisAd(currentAd)
    }

    /// Why this device was shown `ad`: the edge's `launch.why`, asked with the launch's own identity of the device
    /// (app, platform, version, region, locale, device id), so that the edge explains the decision it made for it.
    /// An ad the edge does not answer this device (any more) is an ``EdgeError`` whose ``EdgeError/isNotAnswered``
    /// is true. It waits no longer than `waitBudget` for the edge.
    public func whyThisAd(_ ad: LaunchAd) async throws -> AdWhy {
        try await whyThisAd(campaignId: ad.campaignId)
    }

    /// ``whyThisAd(_:)`` of the campaign `campaignId` (an ad the app shows by itself, say, or adsim's `why`).
    public func whyThisAd(campaignId: Int64) async throws -> AdWhy {
        let params = WhyParams(app: configuration.app, platform: configuration.platform, appVersion: configuration.appVersion,
                               region: configuration.region, locale: configuration.locale, deviceId: configuration.deviceId,
                               id: campaignId)
        // The user is looking at the sheet, waiting: no longer than a launch waits for its answer.
        return try await connection.call("launch.why", params, timeout: min(configuration.requestTimeout, configuration.waitBudget))
    }

    // MARK: Refresh

    /// What `refresh()` did.
    public struct RefreshSummary: Sendable, Equatable {
        /// Creatives now on disk for the campaigns ahead.
        public var kept: [String] = []
        /// Creatives deleted (the prefetch's `delete`, and what revoked campaigns left).
        public var deleted: [String] = []
        /// Campaigns forgotten (expired, deleted or paused).
        public var revoked: [Int64] = []
        /// Creatives that could not be fetched, and why (tried again at the next refresh).
        public var failed: [String: String] = [:]
    }

    /// The prefetch: downloads the creatives of the campaigns ahead (with their windows), deletes what the edge
    /// says no campaign ahead uses and what revoked campaigns leave. For the app to call in the background or on
    /// Wi-Fi.
    public func refresh() async throws -> RefreshSummary {
        let params = PrefetchParams(app: configuration.app, platform: configuration.platform, appVersion: configuration.appVersion,
                                    region: configuration.region, locale: configuration.locale, screen: screen,
                                    horizonHours: configuration.prefetchHorizonHours, cached: await cache.held)
        let answer: PrefetchAnswer = try await connection.call("launch.prefetch", params, timeout: configuration.requestTimeout)
        var summary = RefreshSummary()
        summary.revoked = answer.revoked
        summary.deleted = try await cache.revoke(answer.revoked)
        let deletions = answer.delete.filter { sha256 in !answer.download.contains { $0.sha256 == sha256 } }
        try await cache.remove(deletions)
        summary.deleted = Array(Set(summary.deleted + deletions)).sorted()
        for item in answer.download {
            guard let ends = RFC3339.date(item.endsAt) else { continue }
            let starts = RFC3339.date(item.startsAt)
            try await cache.update { manifest in
                var campaign = manifest.campaigns[item.campaignId]
                    ?? .init(id: item.campaignId, startsAt: starts, expiresAt: ends, creatives: [], presentation: nil, answeredAt: nil,
                             hotAfterSeconds: nil)
                campaign.startsAt = starts
                campaign.expiresAt = ends
                if !campaign.creatives.contains(item.sha256) { campaign.creatives.append(item.sha256) }
                manifest.campaigns[item.campaignId] = campaign
            }
            guard let url = URL(string: item.url) else {
                summary.failed[item.sha256] = "not a URL: \(item.url)"
                continue
            }
            do {
                try await cache.fetch(sha256: item.sha256, from: url, size: item.size, contentType: item.contentType, now: clock.now(),
                                      timeout: configuration.requestTimeout)
                if !summary.kept.contains(item.sha256) { summary.kept.append(item.sha256) }
            } catch {
                summary.failed[item.sha256] = "\(error)"
            }
        }
        return summary
    }

    // MARK: Reports

    /// Queues an event of `ad`'s session (once per launch and kind: the event id is `launch`'s and the kind's),
    /// saved before it returns. Returns the event id.
    @discardableResult
    public func record(_ kind: ReportKind, of ad: LaunchAd, launch: String) async throws -> String {
        if kind == .impression { currentAd = ad }
        return try await report(kind, launch: launch, campaignId: ad.campaignId, sha256: ad.sha256)
    }

    /// Queues an event of launch `launch`, with the app's id (every event carries it: the funnel is counted by app).
    @discardableResult
    func report(_ kind: ReportKind, launch: String, campaignId: Int64?, sha256: String? = nil) async throws -> String {
        let eventId = "\(launch)-\(kind.rawValue)"
        // The edge takes event ids of 1 to 64 bytes: a longer one would be refused, and the event lost.
        guard !launch.isEmpty, launch.utf8.count <= InvalidLaunchId.longest else { throw InvalidLaunchId(launch: launch) }
        try await reports.enqueue(ReportEvent(eventId: eventId, type: kind.rawValue, campaignId: campaignId, app: configuration.app,
                                              deviceId: configuration.deviceId, sha256: sha256, at: RFC3339.text(clock.now())))
        return eventId
    }

    /// Queues the user's report of `ad` (`launch.report` kind `reported`, with `reason`), saved before it returns, and
    /// sent with the other events (``flushReports(force:)``). With `launch`, once per launch (the event id is
    /// `launch`'s: reporting the same launch's ad again is counted once); without, each call is a report of its own.
    /// Returns the event id.
    @discardableResult
    public func report(_ ad: LaunchAd, reason: AdReportReason, launch: String? = nil) async throws -> String {
        let eventId: String
        if let launch {
            guard !launch.isEmpty, launch.utf8.count <= InvalidLaunchId.longest else { throw InvalidLaunchId(launch: launch) }
            eventId = "\(launch)-\(Self.reportedType)"
        } else {
            eventId = "\(Self.reportedType)-\(UUID().uuidString.lowercased())"
        }
        try await reports.enqueue(ReportEvent(eventId: eventId, type: Self.reportedType, campaignId: ad.campaignId, app: configuration.app,
                                              deviceId: configuration.deviceId, sha256: ad.sha256, at: RFC3339.text(clock.now()),
                                              reason: reason.rawValue))
        return eventId
    }

    /// The event type of a user's report (not a ``ReportKind``: a session never records one by itself).
    static let reportedType = "reported"

    /// Sends the queued events (unless the backoff after a failure says not yet, or `force`).
    @discardableResult
    public func flushReports(force: Bool = false) async -> ReportFlush {
        await flushReports(force: force, timeout: configuration.requestTimeout)
    }

    /// ``flushReports(force:)`` with each call to the edge given at most `timeout` seconds.
    func flushReports(force: Bool = false, timeout: Double) async -> ReportFlush {
        let connection = connection
        return await reports.flush(now: clock.now(), force: force) { events in
            try await connection.call("launch.report", ReportParams(events: events), as: ReportAnswer.self, timeout: timeout)
        }
    }

    /// A launch id that makes no event id the edge takes (1 to 64 bytes with `-impression`).
    public struct InvalidLaunchId: Error, CustomStringConvertible {
        public let launch: String
        /// The longest launch id: 64 bytes less the longest kind's suffix (`-impression`), the same for every kind.
        static let longest = 64 - 1 - (ReportKind.allCases.map(\.rawValue.utf8.count).max() ?? 0)
        public var description: String { "the launch id must be 1 to \(Self.longest) bytes, not \(launch.utf8.count)" }
    }

    /// The ids of the events waiting to be sent.
    public func pendingReports() async -> [String] { await reports.pending.map(\.eventId) }
}

/// A time behind a lock: the suppression, read from outside the client's actor.
final class SuppressionTime: @unchecked Sendable {
    // @unchecked: `until` is guarded by `lock`.
    private let lock = NSLock()
    private var until: Date?

    func get() -> Date? { lock.holding { until } }
    func set(_ date: Date?) { lock.holding { until = date } }
}

extension LaunchKind {
    var key: String {
        switch self {
        case .cold: "cold"
        case .hot: "hot"
        }
    }
}
