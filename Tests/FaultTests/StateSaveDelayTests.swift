import Foundation
import JSONRPC
import LaunchAdAPI
import LaunchAdTesting
import Testing

extension FaultTests {
    /// `--state-save-delay`: how long a change waits before the edge saves and acknowledges it.
    @Suite("the state save's delay", .serialized, .timeLimit(.minutes(2)))
    struct StateSaveDelayTests {
        @Test("a change is answered at once, and saved and acknowledged only once --state-save-delay has passed")
        func delayedSave() async throws {
            try await withStopping(CampaignFixture()) { fixture in
                let admin = try fixture.admin()
                let creative = try await fixture.uploadPNG(admin)
                let delay = Duration.seconds(4)
                try await withStopping(fixture.startEdge("edge-delay", arguments: ["--state-save-delay", "4000"])) { edge in
                    let cache = fixture.cacheDirectory("edge-delay")
                    func acknowledged() async -> Int64? {
                        try? await CampaignFixture.acknowledgedSeq(admin, edge: "edge-delay")
                    }
                    // The first session's state (its snapshot) is saved and acknowledged after the delay too.
                    #expect(await eventually(timeout: .seconds(15)) { await acknowledged() != nil })

                    let asked = ContinuousClock.now
                    let created = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(name: "delayed", creative: creative))
                    #expect(await edge.waitFor(seq: created.seq, timeout: .seconds(2)))
                    let applied = ContinuousClock.now - asked
                    // Looked at well within the delay (a machine slow enough to take longer proves nothing either way).
                    if applied < delay / 2 {
                        #expect(savedState(cache).state.seq < created.seq)
                        let acknowledgedSoon = await acknowledged() ?? 0
                        #expect(acknowledgedSoon < created.seq)
                    } else {
                        Issue.record("the edge took \(applied) to apply the change: too slow to tell its save from the delay")
                    }
                    #expect(await eventually(timeout: .seconds(15)) {
                        let acknowledgedSeq = await acknowledged()
                        return savedState(cache).state.seq == created.seq && acknowledgedSeq == created.seq
                    }, "\(edge.process.log.suffix(1500))")
                    // Not before the delay: the change came after the request was sent.
                    #expect(ContinuousClock.now - asked >= delay)
                    await admin.close()
                }
            }
        }
    }
}
