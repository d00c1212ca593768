import Foundation
import JSONRPC
import LaunchAdAPI
import LaunchAdDomain
import LaunchAdTesting
@testable import RelayService
import Testing
import ZMQRPC

/// A relay's pages are cut as campaignd's are: at the same count and about 4 MiB of campaigns, with `next` and `seq`
/// telling what follows, so that an edge pages below a relay as below campaignd.
@Suite("relay pages", .timeLimit(.minutes(3)))
struct RelayPagingTests {
    @Test("a relay's snapshot pages and pages of changes stop at about 4 MiB of campaigns, and an edge below pages through them to everything")
    func pagesBoundedInBytes() async throws {
        try await withCampaignService { campaign in
            let admin = try campaign.admin()
            let creative = try await campaign.uploadPNG(admin)
            // About 36 KB each: the most regions a campaign may target, each of the longest name.
            var fields = CampaignFixture.fields(creative: creative)
            fields.targeting = Targeting(regions: (0..<CampaignRules.maxTargets).map { "region-\($0)-" + String(repeating: "x", count: 20) })
            let start = try await campaign.snapshot().seq
            try await withRelay("relay", connectedTo: campaign) { relay in
                // The relay holds the state before the changes come, so its window holds every one of them.
                #expect(await eventually(timeout: .seconds(10)) { (try? await relay.snapshot().seq) == start })
                let count = 140
                var last = start
                for _ in 0..<count { last = try await admin.call(AdminAPI.campaignCreate, fields).seq }
                #expect(await eventually(timeout: .seconds(20)) { relay.app.followed.cell.state.seq == last })
                let upstream = try await campaign.snapshot()
                let sync = try relay.sync()

                var after: Int64 = 0, joined: [Campaign] = [], pages = 0
                while true {
                    let page = try await sync.call(SyncAPI.snapshot, SnapshotParams(after: after, limit: SyncAPI.maxSnapshotPage))
                    pages += 1
                    joined += page.campaigns
                    #expect(page.epoch == upstream.epoch && page.seq == last)
                    #expect(try Self.withinBound(page.campaigns), "a page of \(page.campaigns.count) campaigns")
                    guard let next = page.next else { break }
                    #expect(next == page.campaigns.last?.id)
                    after = next
                }
                #expect(joined == upstream.campaigns && pages >= 2, "\(joined.count) campaigns in \(pages) pages")

                var since = start, changePages = 0, changed: [Change] = []
                while true {
                    let page = try await sync.call(SyncAPI.changes, ChangesParams(epoch: upstream.epoch, since: since, limit: SyncAPI.maxChangesPage))
                    changePages += 1
                    changed += page.changes
                    #expect(!page.changes.isEmpty && page.seq == last)
                    #expect(try Self.withinBound(page.changes.map(\.campaign)), "a page of \(page.changes.count) changes")
                    since = page.changes.last?.seq ?? since
                    if page.changes.isEmpty || since >= page.seq { break }
                }
                #expect(changed.map(\.seq) == Array(start + 1...last) && changePages >= 2, "\(changed.count) changes in \(changePages) pages")
                await sync.close()

                // An edge started below now takes the relay's snapshot in pages and holds what campaignd holds.
                // Paging 5 MB through a debug build beside CI's sanitizer build can take tens of seconds: the bound is wide,
                // and a failure says whether the edge had applied the state (in memory) or only not saved it.
                try await withEdge("edge", connectedTo: relay) { edge in
                    #expect(await edgeSaves(upstream, edge: "edge", in: relay, timeout: .seconds(60)),
                            "\(savedDifference(upstream, edge: "edge", in: relay) ?? ""); in memory: seq \(edge.app.cell.state.seq)")
                }
            }
            await admin.close()
        }
    }

    @Test("the change window cuts a page as campaignd does: up to 10,000 changes, no more bytes than the bound, but one bigger than it alone")
    func windowPages() throws {
        var window = ChangeWindow(epoch: "e", seq: 0, capacity: 20_000)
        let campaign = APIExamples.plainCampaign
        let changes = (1...12_000).map { Change(seq: Int64($0), op: .created, id: campaign.id, campaign: campaign, at: campaign.updatedAt) }
        window.append(changes.map(ChangeWindow.Held.init), epoch: "e")
        let size = PageBound.bytes(of: campaign)
        #expect(size == (try JSONValueEncoder().encodeJSON(campaign).count))

        let asked = ChangesParams(epoch: "e", since: 0, limit: 50_000)
        #expect(window.changes(epoch: "e", since: 0, bound: PageBound(limit: asked.pageLimit, maxBytes: 1 << 40))?.count == SyncAPI.maxChangesPage)
        #expect(window.changes(epoch: "e", since: 0, bound: PageBound(limit: asked.pageLimit))?.count == SyncAPI.maxPageBytes / size)
        #expect(window.changes(epoch: "e", since: 0, bound: PageBound(limit: ChangesParams(epoch: "e", since: 0).pageLimit))?.count == 1000)
        #expect(window.changes(epoch: "e", since: 11_990, bound: PageBound(limit: asked.pageLimit))?.map(\.seq) == Array(11_991...12_000))
        #expect(window.changes(epoch: "e", since: 0, bound: PageBound(limit: 100, maxBytes: size * 5 / 2))?.map(\.seq) == [1, 2])
        #expect(window.changes(epoch: "e", since: 7, bound: PageBound(limit: 100, maxBytes: 1))?.map(\.seq) == [8])
        #expect(window.changes(epoch: "e", since: 12_000, bound: PageBound(limit: 100))?.isEmpty == true)
        #expect(window.changes(epoch: "other", since: 0, bound: PageBound(limit: 100)) == nil)
    }

    @Test("the change window keeps at most its bytes of campaigns as well as its count, the newest always; asked from before it, it has nothing and the edge takes a snapshot")
    func windowBytes() throws {
        let campaign = APIExamples.plainCampaign
        let size = PageBound.bytes(of: campaign)
        var window = ChangeWindow(epoch: "e", seq: 0, capacity: 100, maxBytes: 10 * size)
        func changes(_ seqs: ClosedRange<Int>) -> [ChangeWindow.Held] {
            seqs.map { ChangeWindow.Held(Change(seq: Int64($0), op: .updated, id: campaign.id, campaign: campaign, at: campaign.updatedAt)) }
        }
        #expect(window.append(changes(1...8), epoch: "e") == ChangeWindow.Trimmed())
        #expect(window.append(changes(9...15), epoch: "e") == ChangeWindow.Trimmed(byCount: 0, byBytes: 5))
        #expect(window.bytes == 10 * size && window.seq == 15)
        #expect(window.changes(epoch: "e", since: 5, bound: PageBound(limit: 100))?.map(\.seq) == Array(6...15))
        #expect(window.changes(epoch: "e", since: 4, bound: PageBound(limit: 100)) == nil)
        // Past the count first: counted as such.
        var counted = ChangeWindow(epoch: "e", seq: 0, capacity: 3, maxBytes: 10 * size)
        #expect(counted.append(changes(1...5), epoch: "e") == ChangeWindow.Trimmed(byCount: 2, byBytes: 0))
        // A change bigger than the whole bound is kept alone.
        var tiny = ChangeWindow(epoch: "e", seq: 0, capacity: 100, maxBytes: 1)
        #expect(tiny.append(changes(1...3), epoch: "e") == ChangeWindow.Trimmed(byCount: 0, byBytes: 2))
        #expect(tiny.changes(epoch: "e", since: 2, bound: PageBound(limit: 100))?.map(\.seq) == [3])
        // Starting over forgets the bytes too.
        window.reset(epoch: "f", seq: 40)
        #expect(window.bytes == 0 && window.seq == 40)
    }

    /// Whether a page's campaigns keep to the bound campaignd keeps: their JSON at most ``SyncAPI/maxPageBytes``, or
    /// one campaign alone.
    static func withinBound(_ campaigns: [Campaign]) throws -> Bool {
        let bytes = try campaigns.reduce(0) { $0 + (try JSONValueEncoder().encodeJSON($1).count) }
        return campaigns.count == 1 || bytes <= SyncAPI.maxPageBytes
    }
}
