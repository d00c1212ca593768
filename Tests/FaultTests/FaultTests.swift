import CampaignFollowing
import CampaignStore
@testable import DeliveryService
import Foundation
import JSONRPC
import LaunchAdAPI
import LaunchAdDomain
import LaunchAdTesting
import Synchronization
import Locking
import Testing
import ZMQRPC

/// Real processes under faults: campaignd and edges killed with SIGKILL in the middle of work, updates lost, an
/// edge cut off behind a proxy with its clock off, a new database, an unwritable cache folder. Each test checks
/// the promise of DESIGN's "Durability and failure" and "Force and expire" that the fault puts at risk.
///
/// The suite runs its tests one at a time (each starts several processes; on two cores they would starve each
/// other's heartbeats). `LAUNCHAD_FAULTS_LONG=1` runs the long variant (see `FaultScale`).
@Suite("faults", .serialized, .timeLimit(.minutes(10)))
struct FaultTests {
    // The tests are in nested suites, one file each, which run one at a time too.
}

/// What the querying tasks saw.
final class Tally: Sendable {
    let answers = Atomic<Int>(0)
    private let found = Locked<[String]>([])
    var violations: [String] { found.withLock { $0 } }
    func violation(_ text: String) { found.withLock { $0.append(text) } }
}

/// Reports of one campaign's events to an edge, numbered `ev-1`, `ev-2`…, and what campaignd and the edge's report
/// file say of them.
final class ReportProbe {
    let campaign: Int64
    let file: ReportFile
    private var serial = 0

    init(campaign: Int64, file: ReportFile) {
        self.campaign = campaign
        self.file = file
    }

    /// Sends new events; each must be accepted.
    func report(to edge: EdgeProcess, impressions: Int = 0, clicks: Int = 0, skips: Int = 0) async throws {
        var events: [LaunchEvent] = []
        for (type, count) in [(LaunchEvent.Kind.impression, impressions), (.click, clicks), (.skip, skips)] {
            for _ in 0..<count {
                serial += 1
                events.append(LaunchEvent(eventId: "ev-\(serial)", type: type, campaignId: campaign, deviceId: "d-\(serial)"))
            }
        }
        let answer = try await edge.client.call(ClientAPI.launchReport, LaunchReportParams(events: events))
        #expect(answer.accepted == events.count)
    }

    /// Sends again the events numbered `serials` (as clients do when an answer was lost); returns how many the edge
    /// took for duplicates.
    func resend(_ serials: ClosedRange<Int>, to edge: EdgeProcess) async throws -> Int {
        let events = serials.map { LaunchEvent(eventId: "ev-\($0)", type: .impression, campaignId: campaign, deviceId: "d-\($0)") }
        return try await edge.client.call(ClientAPI.launchReport, LaunchReportParams(events: events)).duplicates
    }

    /// campaignd's impressions, clicks and skips of the campaign, or `nil` when it has none or cannot say.
    func counted(_ admin: RPCClient) async -> [Int64]? {
        guard let stats = try? await admin.call(AdminAPI.campaignStats, CampaignStatsParams(id: campaign)).stats.first(where: { $0.id == campaign }) else {
            return nil
        }
        return [stats.impressions, stats.clicks, stats.skips]
    }

    /// What the edge's report file holds for the campaign, pending and unsent together.
    func onDisk() -> [Int64] {
        let body = file.onDisk
        let all = (body.pending?.counts ?? []) + body.unsent
        return all.filter { $0.id == campaign }.reduce([0, 0, 0]) { [$0[0] + $1.impressions, $0[1] + $1.clicks, $0[2] + $1.skips] }
    }
}

extension ReportFile {
    /// What the file holds now, read without acting on it (the edge's own read sets aside a file it cannot use); empty
    /// when there is none or it does not verify.
    var onDisk: Body { ChecksummedFile.read(Body.self, at: url).body ?? .empty }
}
