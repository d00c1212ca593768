@testable import CampaignFollowing
import CampaignStore
@testable import DurableFiles
import Foundation
import JSONRPC
import LaunchAdAPI
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
        Change(seq: seq, op: .updated, id: campaign.id, campaign: campaign, at: now)
    }

    @Test("the creatives to fetch: those the edge lacks, of campaigns that may still serve, once each, forced campaigns' first, then by start")
    func missingCreatives() {
        func sha(_ letter: String) -> String { String(repeating: letter, count: 64) }
        func campaign(_ id: Int64, start: Double, forced: Bool = false, state: CampaignState = .scheduled, _ creatives: [String]) -> Campaign {
            var campaign = Self.campaign(id, app: "a", forced: forced, state: state)
            campaign.startsAt = Self.now.adding(seconds: start)
            campaign.creatives = creatives.map { CreativeRef(sha256: sha($0)) }
            return campaign
        }
        let held = CreativeFacts(sha256: sha("h"), contentType: "image/png", width: 1080, height: 1920, size: 10)
        let state = EdgeState(epoch: "e", seq: 1, campaigns: [
            1: campaign(1, start: 600, ["b", "c"]),
            2: campaign(2, start: 60, ["d", "h", "b"]),
            3: campaign(3, start: 900, forced: true, ["e"]),
            4: campaign(4, start: 0, state: .expired, ["f"]),
            5: campaign(5, start: 0, state: .deleted, ["g"]),
            6: campaign(6, start: 300, state: .paused, ["i"]),
        ], creatives: [held.sha256: held])
        #expect(state.missingCreatives == ["e", "d", "b", "i", "c"].map(sha))
    }

    @Test("each save, after changes, a new snapshot, an empty state and a new writer, reads back as exactly the saved state")
    func roundTrip() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("statefile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var file = StateFile(directory: directory)
        func check(_ state: EdgeState, _ step: String) throws {
            try file.save(state)
            let (loaded, discarded) = StateFile(directory: directory).load()
            #expect(!discarded, "\(step)")
            #expect(loaded.epoch == state.epoch && loaded.seq == state.seq, "\(step)")
            #expect(loaded.campaigns == state.campaigns, "\(step)")
            #expect(loaded.creatives == state.creatives, "\(step)")
        }

        // A video's length (durationMs) is kept with its other facts.
        let video = CreativeFacts(sha256: String(repeating: "e", count: 64), contentType: "video/mp4", width: 1080, height: 1920, size: 4_096,
                                  durationMs: 5_005)
        var state = EdgeState(epoch: "e1", seq: 3, campaigns: [1: Self.campaign(1, app: "a"), 2: Self.campaign(2, app: "b"),
                                                               3: Self.campaign(3, app: "a")],
                              creatives: [Self.facts.sha256: Self.facts, video.sha256: video])
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
        #expect(String(decoding: file.contents(of: state, generation: 1), as: UTF8.self).contains("\"epoch\":\"e2\""))
        // A writer that starts with nothing kept, an epoch that needs escaping, then no campaigns at all.
        file = StateFile(directory: directory)
        state = EdgeState(epoch: "e\"3\\\n", seq: 9, campaigns: campaigns, creatives: [Self.facts.sha256: Self.facts])
        try check(state, "a new writer and an escaped epoch")
        state = EdgeState(epoch: "e4", seq: 10, campaigns: [:], creatives: [:])
        try check(state, "nothing at all")
    }

    @Test("the state's two copies: saves overwrite them in turn in place, a torn newest copy leaves the one before, a failed save is retried on the same copy, an older edge's file is read, and against it the copy written last wins")
    func twoCopies() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("statecopies-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = directory.appendingPathComponent("state.json"), second = directory.appendingPathComponent("state.b.json")
        func copy(_ url: URL) -> StateFile.Body? { ChecksummedFile.read(StateFile.Body.self, at: url).body }
        func size(_ url: URL) throws -> Int { try #require(FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) }
        func state(_ seq: Int64, campaigns count: Int = 3) -> EdgeState {
            EdgeState(epoch: "e", seq: seq, campaigns: Dictionary(uniqueKeysWithValues: (1...Int64(count)).map {
                ($0, Self.campaign($0, app: "a", version: Int(seq)))
            }), creatives: [Self.facts.sha256: Self.facts])
        }
        func expectLoaded(_ expected: EdgeState, discarded: Bool, _ step: String) {
            let (loaded, wasDiscarded) = StateFile(directory: directory).load()
            #expect(loaded.seq == expected.seq && loaded.campaigns == expected.campaigns && wasDiscarded == discarded, "\(step)")
        }

        let file = StateFile(directory: directory)
        try file.save(state(1))
        #expect(copy(first)?.generation == 1 && !FileManager.default.fileExists(atPath: second.path))
        try file.save(state(2))
        #expect(copy(first)?.seq == 1 && copy(second)?.seq == 2 && copy(second)?.generation == 2)
        expectLoaded(state(2), discarded: false, "the second save")
        // Kept at a size rounded up and filled: a save of about as much keeps the file's size.
        let kept = try size(first)
        #expect(kept % InPlaceFile.sizeStep == 0)
        try file.save(state(3))
        #expect(try size(first) == kept && copy(first)?.seq == 3 && copy(first)?.generation == 3)

        // The newest copy torn (a crash in its write): the one before is the state, and the torn one is said.
        var torn = [UInt8](try Data(contentsOf: first))
        torn.replaceSubrange(100..<120, with: repeatElement(UInt8(ascii: "x"), count: 20))
        try Data(torn).write(to: first)
        expectLoaded(state(2), discarded: true, "the newest copy torn")
        // The next save, by a writer that loaded, overwrites the torn copy, not the whole one.
        let reopened = StateFile(directory: directory)
        _ = reopened.load()
        try reopened.save(state(4))
        #expect(copy(first)?.seq == 4 && copy(first)?.generation == 3 && copy(second)?.seq == 2)
        expectLoaded(state(4), discarded: false, "after the torn copy's rewrite")

        // A save that fails (the copy's name taken by a folder) is retried on that copy, never on the newest.
        try reopened.save(state(5))
        #expect(copy(second)?.seq == 5 && copy(second)?.generation == 4)
        try FileManager.default.removeItem(at: first)
        try FileManager.default.createDirectory(at: first, withIntermediateDirectories: false)
        #expect(throws: (any Error).self) { try reopened.save(state(6)) }
        #expect(throws: (any Error).self) { try reopened.save(state(7)) }
        #expect(copy(second)?.seq == 5)
        try FileManager.default.removeItem(at: first)
        try reopened.save(state(8))
        #expect(copy(first)?.seq == 8 && copy(first)?.generation == 5 && copy(second)?.seq == 5)
        expectLoaded(state(8), discarded: false, "after a failed save")

        // Far more, then far less: the file grows, then shrinks back, and each reads back.
        try reopened.save(state(9, campaigns: 200))
        try reopened.save(state(10, campaigns: 200))
        let grown = try size(first)
        #expect(grown > kept)
        expectLoaded(state(10, campaigns: 200), discarded: false, "grown")
        try reopened.save(state(11, campaigns: 1))
        #expect(try size(second) < grown)
        expectLoaded(state(11, campaigns: 1), discarded: false, "shrunk")

        // An older edge's state.json (no generation, no second copy, creatives without durationMs) is read, and the
        // first save goes to the other copy.
        try FileManager.default.removeItem(at: second)
        let older = #"{"epoch":"old","seq":7,"campaigns":[],"creatives":[{"sha256":"\#(Self.facts.sha256)","contentType":"image/png","width":1080,"height":1920,"size":10}]}"#
        try Data(ChecksummedFile.contents(body: Array(older.utf8))).write(to: first)
        let (loaded, discarded) = StateFile(directory: directory).load()
        #expect(loaded.epoch == "old" && loaded.seq == 7 && !discarded)
        #expect(loaded.creatives == [Self.facts.sha256: Self.facts] && Self.facts.durationMs == 0)
        let upgraded = StateFile(directory: directory)
        try upgraded.save(state(12))
        #expect(copy(first)?.epoch == "old" && copy(second)?.seq == 12 && copy(second)?.generation == 1)
        expectLoaded(state(12), discarded: false, "after an older edge's file")

        // Taken back to an older release, which wrote state.json again (no generation) and left state.b.json, then
        // forward: the copy written last is the state, and the next save goes to the other one.
        let downgraded = #"{"epoch":"e","seq":13,"campaigns":[],"creatives":[]}"#
        try Data(ChecksummedFile.contents(body: Array(downgraded.utf8))).write(to: first)
        func written(_ url: URL, secondsAgo: TimeInterval) throws {
            try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -secondsAgo)], ofItemAtPath: url.path)
        }
        try written(second, secondsAgo: 60)
        try written(first, secondsAgo: 30)
        expectLoaded(EdgeState(epoch: "e", seq: 13, campaigns: [:], creatives: [:]), discarded: false, "after a downgrade")
        // The other way round, the copy with a generation written after the older edge's (a first upgrade): that copy.
        try written(first, secondsAgo: 90)
        expectLoaded(state(12), discarded: false, "the copy with a generation written last")
        try written(first, secondsAgo: 30)
        let forward = StateFile(directory: directory)
        _ = forward.load()
        try forward.save(state(14))
        #expect(copy(first)?.seq == 13 && copy(second)?.seq == 14 && copy(second)?.generation == 1)
        expectLoaded(state(14), discarded: false, "the first save after a downgrade and an upgrade")
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
            let fresh = DecisionEngine.index(state.campaigns.values, creatives: state.creatives, preparer: .json)
            #expect(fresh.mapValues { $0.candidates.map(\.campaign.id) } == state.index.mapValues { $0.candidates.map(\.campaign.id) }, "step \(step)")
            #expect(fresh.mapValues(\.revoked) == state.index.mapValues(\.revoked), "step \(step)")
        }
        // Every campaign of app-0 moves to app-9 in one batch: app-0's entry must go, app-9's must hold them all.
        let moved = state.campaigns.values.filter { $0.app == "app-0" }.sorted { $0.id < $1.id }
        #expect(!moved.isEmpty)
        state = state.applying(moved.enumerated().map { offset, campaign in
            var campaign = campaign
            campaign.app = "app-9"
            campaign.state = .live
            return Self.change(seq + 1 + Int64(offset), campaign)
        })
        #expect(state.index["app-0"] == nil)
        #expect(Set(state.index["app-9"]?.candidates.map(\.campaign.id) ?? []) == Set(moved.map(\.id)))
        #expect(state.index["app-9"]?.candidates.allSatisfy { $0.held.count == 1 } == true)
    }

    @Test("the query path's lookup of an app finds what the index holds, for every app, any count of apps, and names it does not hold")
    func appLookup() {
        for count in [0, 1, 2, 3, 5, 17, 300] {
            let campaigns = (0..<count).map { Self.campaign(Int64($0), app: "app.\($0 * 7919 % 1000)") }
            let state = EdgeState(epoch: "e", seq: 1, campaigns: Dictionary(uniqueKeysWithValues: campaigns.map { ($0.id, $0) }),
                                  creatives: [Self.facts.sha256: Self.facts])
            #expect(state.index.count == count)
            for (app, entry) in state.index {
                #expect(state.appIndex(app)?.candidates.map(\.campaign.id) == entry.candidates.map(\.campaign.id), "\(count) apps: \(app)")
            }
            for unknown in ["", "app", "app.", "app.1000", "APP.0", "app.0 ", String(repeating: "z", count: 64)] where state.index[unknown] == nil {
                #expect(state.appIndex(unknown) == nil, "\(count) apps: \(unknown)")
            }
        }
    }
}
