import CampaignFollowing
import DurableFiles
import Foundation
import JSONRPC
import LaunchAdAPI
import LaunchAdDomain
import Locking

/// The counts campaignd has not taken yet, on disk (`reports.json` in the cache folder, a ``ChecksummedFile`` written
/// atomically), so that a restart loses none of them and counts none twice, even while campaignd is away: the
/// report on its way is kept under its id (campaignd takes an id once), and the counts gathered since beside it. A
/// file that does not verify is never trusted, nor overwritten: it is set aside (``SetAsideFile``).
final class ReportFile: Sendable {
    struct Body: Codable, Equatable, Sendable {
        /// The last report id used: ids keep growing across restarts, even when the clock has gone back.
        var lastReportId: Int64
        /// The report sent (or about to be) that campaignd has not answered: sent again as it is.
        var pending: EdgeReport?
        /// Counts gathered since, in no report yet, per campaign (as a file of an older edge has them).
        var unsent: [CampaignStats]
        /// The same counts by campaign, hour and creative (absent from an older edge's file).
        var unsentHourly: [HourlyCount]?
        /// The counts by app and hour gathered since (absent when none, and from an older edge's file).
        var unsentApps: [AppHourlyCount]?

        init(lastReportId: Int64, pending: EdgeReport?, unsent: [HourlyCount], apps: [AppHourlyCount] = []) {
            self.lastReportId = lastReportId
            self.pending = pending
            self.unsent = HourlyCount.totals(unsent)
            self.unsentHourly = unsent
            self.unsentApps = apps.isEmpty ? nil : apps
        }

        /// The counts gathered and not shipped, by hour: an older file's, under the hour of `now`.
        func hourly(now: Timestamp) -> [HourlyCount] {
            unsentHourly ?? ReportHours.hourly(totals: unsent, at: now)
        }

        static let empty = Body(lastReportId: 0, pending: nil, unsent: [])
    }

    let url: URL
    /// What the file holds, once written or read by this process (so the same body is not written twice).
    private let written = Locked<Body?>(nil)

    init(directory: URL) {
        url = directory.appendingPathComponent("reports.json")
    }

    /// Whether the file already holds `body` (written or read by this process).
    func holds(_ body: Body) -> Bool {
        written.withLock { $0 == body }
    }

    /// Writes `body` unless the file already holds it.
    func save(_ body: Body) throws {
        guard written.withLock({ $0 != body }) else { return }
        try AtomicFile.write(ChecksummedFile.contents(body: try JSONValueEncoder().encodeJSON(body)), to: url)
        written.withLock { $0 = body }
    }

    /// The counts saved, or ``Body/empty`` when there are none, or when the file could not be used: it is then set
    /// aside (`setAside`) with the counts it may hold, never overwritten. An error when it could not be set aside.
    func load() throws -> (body: Body, setAside: SetAsideFile.Note?) {
        let (read, setAside) = try ChecksummedFile.load(Body.self, at: url)
        guard let body = read else { return (.empty, setAside) }
        written.withLock { $0 = body }
        return (body, nil)
    }
}
