import Foundation

/// The SDK: what an app holds from start to exit. `launch(_:)` decides under the configured policy, `refresh()`
/// fills and prunes the cache, `record(_:of:launch:)` and `flushReports()` carry impressions, clicks and skips to
/// the edge. Every time it reads (validity, backoff, sessions) comes from its ``LaunchAdClock``.
public actor LaunchAdClient {
    public nonisolated let configuration: LaunchAdConfiguration
    public nonisolated let clock: any LaunchAdClock
    let connection: EdgeConnection
    let cache: AdCache
    let reports: ReportQueue
    /// Work a launch started that goes on after its decision (the answer updating the cache).
    private var background: [Task<Void, Never>] = []

    /// Opens the state folder (made if missing) and what an earlier run left in it: the cache and the report queue.
    public init(configuration: LaunchAdConfiguration, clock: any LaunchAdClock = SystemClock()) throws {
        self.configuration = configuration
        self.clock = clock
        try FileManager.default.createDirectory(at: configuration.stateDirectory, withIntermediateDirectories: true)
        connection = EdgeConnection(edge: configuration.edge)
        cache = try AdCache(folder: configuration.stateDirectory.appendingPathComponent("cache"), maxBytes: configuration.cacheBytes)
        reports = ReportQueue(file: configuration.stateDirectory.appendingPathComponent("reports.json"))
    }

    // MARK: Launch

    /// Decides what this launch shows. Cache first: a valid ad already on disk at once (or none), while this
    /// launch's answer updates the cache in the background. Fresh: the edge's answer and its creative if both come
    /// within the wait budget, otherwise `.noAd(.timeout)` (the answer still updates the cache when it comes).
    public func launch(_ kind: LaunchKind = .cold) async -> LaunchDecision {
        switch configuration.policy {
        case .cacheFirst:
            let ad = await cachedAd(kind)
            let timeout = configuration.requestTimeout
            background.append(Task { _ = try? await self.ask(kind, timeout: timeout) })
            return ad.map(LaunchDecision.show) ?? .noAd(.none)
        case .fresh:
            let timeout = max(configuration.requestTimeout, configuration.waitBudget)
            let work = Task { try await self.ask(kind, timeout: timeout) }
            background.append(Task { _ = try? await work.value })
            switch await Self.within(seconds: configuration.waitBudget, work) {
            case nil: return .noAd(.timeout)
            case .success(let ad?): return .show(ad)
            case .success(nil), .failure: return .noAd(.none)
            }
        }
    }

    /// Waits for the work launches started in the background (the cache's update from their answers).
    public func settle() async {
        let tasks = background
        background = []
        for task in tasks { await task.value }
    }

    /// The ad the latest answer chose for this kind of launch, if it is still valid by the device's clock (started,
    /// not past `expiresAt`, not revoked or paused since) and its creative is on disk; for a hot start, only after
    /// as long in the background as the edge showed it needs.
    func cachedAd(_ kind: LaunchKind) async -> LaunchAd? {
        let now = clock.now()
        let manifest = await cache.manifest
        guard let id = manifest.next[kind.key], let campaign = manifest.campaigns[id], let presentation = campaign.presentation,
              await cache.holds(presentation.sha256), campaign.expiresAt > now, (campaign.startsAt ?? now) <= now
        else { return nil }
        if case .hot(let seconds) = kind {
            guard let least = campaign.hotAfterSeconds, seconds >= least else { return nil }
        }
        try? await cache.touch(presentation.sha256, at: now)
        return await ad(campaign, presentation, source: .cache)
    }

    /// Asks the edge for this launch, applies the answer to the cache (revoked campaigns and their creatives go;
    /// the answered campaign is noted as the next launch's, its creative fetched), and returns the answered ad once
    /// its creative is on disk.
    func ask(_ kind: LaunchKind, timeout: Double) async throws -> LaunchAd? {
        let answer: QueryAnswer = try await connection.call("launch.query", queryParams(kind), timeout: timeout)
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
            videoSound: answer.videoSound)
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
        try await cache.fetch(sha256: creative.sha256, from: url, size: creative.size, contentType: creative.contentType, now: now,
                              timeout: timeout)
        try await cache.touch(creative.sha256, at: clock.now())
        guard expiresAt > clock.now(), let campaign = await cache.manifest.campaigns[id] else { return nil }
        return await ad(campaign, presentation, source: .fresh)
    }

    private func ad(_ campaign: CacheManifest.Campaign, _ presentation: CacheManifest.Presentation, source: LaunchAd.Source) async -> LaunchAd {
        let jump = presentation.jumpType == "none" ? nil : presentation.jumpValue.map { LaunchAd.Jump(type: presentation.jumpType, value: $0) }
        return LaunchAd(campaignId: campaign.id, version: presentation.version, sha256: presentation.sha256,
                        file: await cache.file(presentation.sha256), contentType: presentation.contentType,
                        countdown: presentation.countdown, skippable: presentation.skippable, skipAfter: presentation.skipAfter,
                        jump: jump, forced: presentation.forced, expiresAt: campaign.expiresAt, source: source,
                        pixelWidth: presentation.width ?? 1, pixelHeight: presentation.height ?? 1,
                        display: presentation.display ?? .full, clickArea: presentation.clickArea ?? .button,
                        videoSound: presentation.videoSound ?? false)
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
    static func within<T: Sendable>(seconds: Double, _ work: Task<T, any Error>) async -> Result<T, any Error>? {
        try? await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Result<T, any Error>?, any Error>) in
            let once = Once(continuation)
            Task { once.resume(returning: await work.result) }
            DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { once.resume(returning: nil) }
        }
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
        let eventId = "\(launch)-\(kind.rawValue)"
        // The edge takes event ids of 1 to 64 bytes: a longer one would be refused, and the event lost.
        guard !launch.isEmpty, eventId.utf8.count <= 64 else { throw InvalidLaunchId(launch: launch) }
        try await reports.enqueue(ReportEvent(eventId: eventId, type: kind.rawValue, campaignId: ad.campaignId,
                                              deviceId: configuration.deviceId, sha256: ad.sha256, at: RFC3339.text(clock.now())))
        return eventId
    }

    /// Sends the queued events (unless the backoff after a failure says not yet, or `force`).
    @discardableResult
    public func flushReports(force: Bool = false) async -> ReportFlush {
        let connection = connection, timeout = configuration.requestTimeout
        return await reports.flush(now: clock.now(), force: force) { events in
            try await connection.call("launch.report", ReportParams(events: events), as: ReportAnswer.self, timeout: timeout)
        }
    }

    /// A launch id that makes no event id the edge takes (1 to 64 bytes with `-impression`).
    public struct InvalidLaunchId: Error, CustomStringConvertible {
        public let launch: String
        public var description: String { "the launch id must be 1 to \(64 - "-impression".utf8.count) bytes, not \(launch.utf8.count)" }
    }

    /// The ids of the events waiting to be sent.
    public func pendingReports() async -> [String] { await reports.pending.map(\.eventId) }
}

extension LaunchKind {
    var key: String {
        switch self {
        case .cold: "cold"
        case .hot: "hot"
        }
    }
}
