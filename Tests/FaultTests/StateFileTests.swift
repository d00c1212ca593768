import CampaignStore
@testable import DeliveryService
import Foundation
import JSONRPC
import LaunchAdDomain
import Testing

/// The edge's state file keeps each campaign's JSON between saves; these check that what it writes is always the
/// state it was given, as the edge reads it back at start, and that the index it keeps per change is the one a
/// fresh build gives.
@Suite("edge state file and index", .timeLimit(.minutes(1)))
struct StateFileTests {
    static let now = Timestamp(rfc3339: "2026-11-21T12:00:00Z")!
    static let facts = CreativeFacts(sha256: String(repeating: "a", count: 64), contentType: "image/png", width: 1080, height: 1920, size: 10)

    static func campaign(_ id: Int64, app: String, version: Int = 1, forced: Bool = false, state: CampaignState = .live) -> Campaign {
        Campaign(id: id, name: "c\(id) \"quoted\" 开屏", app: app, startsAt: now.adding(seconds: -60), endsAt: now.adding(seconds: 3600),
                 priority: Int(id % 7), weight: 100, forced: forced, countdown: 3, skippable: true, skipAfter: nil, launchTypes: [.cold],
                 minBackgroundSeconds: nil, jump: .none, creatives: [CreativeRef(sha256: facts.sha256)], targeting: .everyone,
                 frequencyCap: nil, state: state, version: version, createdAt: now, updatedAt: now.adding(seconds: Double(version)))
    }

    static func change(_ seq: Int64, _ campaign: Campaign) -> Change {
        Change(seq: seq, op: .updated, id: campaign.id, campaign: campaign, at: now, actor: "test")
    }

    @Test("each save, after changes, a new snapshot and a restart of the writer, reads back as exactly the saved state")
    func roundTrip() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("statefile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = StateFile(directory: directory)
        func check(_ state: EdgeState, _ step: String) throws {
            try file.save(state)
            let (loaded, discarded) = StateFile(directory: directory).load()
            #expect(!discarded, "\(step)")
            #expect(loaded.epoch == state.epoch && loaded.seq == state.seq, "\(step)")
            #expect(loaded.campaigns == state.campaigns, "\(step)")
            #expect(loaded.creatives == state.creatives, "\(step)")
            // The body is what the Codable encoding of the same state decodes to.
            let body = StateFile.Body(epoch: state.epoch, seq: state.seq, campaigns: state.campaigns.values.sorted { $0.id < $1.id },
                                      creatives: state.creatives.values.sorted { $0.sha256 < $1.sha256 })
            let reference = try JSONValueDecoder().decode(StateFile.Body.self, fromJSON: JSONValueEncoder().encodeJSON(body))
            #expect(reference.campaigns == loaded.campaigns.values.sorted { $0.id < $1.id }, "\(step)")
        }

        var state = EdgeState(epoch: "e1", seq: 3, campaigns: [1: Self.campaign(1, app: "a"), 2: Self.campaign(2, app: "b"),
                                                               3: Self.campaign(3, app: "a")], creatives: [Self.facts.sha256: Self.facts])
        try check(state, "first save")
        state = state.applying([Self.change(4, Self.campaign(2, app: "b", version: 2, forced: true))])
        try check(state, "a campaign forced")
        state = state.applying([Self.change(5, Self.campaign(3, app: "c", version: 2)), Self.change(6, Self.campaign(9, app: "a")),
                                Self.change(7, Self.campaign(1, app: "a", version: 2, state: .expired))])
        try check(state, "a move, a new campaign, an expire")
        // A new snapshot without campaign 9: it must be gone from the file.
        var campaigns = state.campaigns
        campaigns[9] = nil
        state = EdgeState(epoch: "e2", seq: 1, campaigns: campaigns, creatives: [:])
        try check(state, "a snapshot that drops a campaign")
        #expect(try String(decoding: file.contents(of: state), as: UTF8.self).contains("\"epoch\":\"e2\""))
    }

    @Test("the index kept change by change is the index built from scratch")
    func incrementalIndex() {
        var state = EdgeState(epoch: "e", seq: 0, campaigns: [:], creatives: [Self.facts.sha256: Self.facts])
        var seq: Int64 = 0
        for step in 0..<200 {
            let id = Int64(step * 7 % 23)
            let states: [CampaignState] = [.live, .scheduled, .paused, .expired, .deleted]
            seq += 1
            state = state.applying([Self.change(seq, Self.campaign(id, app: "app-\(step % 4)", version: step + 1, forced: step % 5 == 0,
                                                                   state: states[step % states.count]))])
            let fresh = DecisionEngine.index(state.campaigns.values, creatives: state.creatives)
            #expect(fresh.mapValues { $0.candidates.map(\.campaign.id) } == state.index.mapValues { $0.candidates.map(\.campaign.id) }, "step \(step)")
            #expect(fresh.mapValues(\.revoked) == state.index.mapValues(\.revoked), "step \(step)")
        }
    }
}
