import CampaignFollowing
import LaunchAdAPI
import LaunchAdDomain
@testable import RelayService
import Testing

/// A relay's snapshot pages come from ids sorted once for a state and sizes measured once for a campaign: the pages
/// must still follow each new state, and a campaign that changed must be measured again.
@Suite("relay snapshot pager", .timeLimit(.minutes(1)))
struct SnapshotPagerTests {
    static func campaign(_ id: Int64, name: String = "c") -> Campaign {
        var campaign = APIExamples.plainCampaign
        campaign.id = id
        campaign.name = name
        return campaign
    }

    static func state(_ seq: Int64, _ campaigns: [Campaign]) -> EdgeState {
        EdgeState(epoch: "e", seq: seq, campaigns: Dictionary(uniqueKeysWithValues: campaigns.map { ($0.id, $0) }), creatives: [:])
    }

    /// Every page of `state` from the start, as a follower asks for them.
    static func pages(_ pager: SnapshotPager, _ state: EdgeState, limit: Int) -> [[Int64]] {
        var after: Int64 = 0, pages: [[Int64]] = []
        while true {
            let page = pager.page(of: state, after: after, limit: limit)
            #expect(page.seq == state.seq && page.epoch == state.epoch)
            pages.append(page.campaigns.map(\.id))
            guard let next = page.next else { return pages }
            #expect(next == page.campaigns.last?.id)
            after = next
        }
    }

    @Test("pages are cut by count in id order, from any id, and follow a new state's campaigns")
    func pagesFollowTheState() {
        let pager = SnapshotPager()
        // Ids out of order and with gaps.
        let first = Self.state(5, [9, 2, 30, 4, 17].map { Self.campaign($0) })
        #expect(Self.pages(pager, first, limit: 2) == [[2, 4], [9, 17], [30]])
        #expect(pager.page(of: first, after: 5, limit: 2).campaigns.map(\.id) == [9, 17])
        #expect(pager.page(of: first, after: 17, limit: 2).next == nil)
        #expect(pager.page(of: first, after: 30, limit: 2).campaigns.isEmpty)
        #expect(pager.snapshot(of: first).campaigns.map(\.id) == [2, 4, 9, 17, 30])
        // A later state with a campaign more: its pages, while the earlier state still pages as it was.
        let second = Self.state(6, [9, 2, 30, 4, 17, 11].map { Self.campaign($0) })
        #expect(Self.pages(pager, second, limit: 4) == [[2, 4, 9, 11], [17, 30]])
        #expect(Self.pages(pager, first, limit: 4) == [[2, 4, 9, 17], [30]])
        #expect(pager.snapshot(of: second) == Snapshot(epoch: "e", seq: 6, campaigns: second.campaigns.values.sorted { $0.id < $1.id }))
    }

    @Test("a campaign that grows is measured again: the byte bound cuts the page where its new size says")
    func changedCampaignMeasuredAgain() {
        let pager = SnapshotPager()
        let small = (1...3).map { Self.campaign($0) }
        let size = PageBound.bytes(of: small[0])
        // Pages of about 4 MiB: the three small ones fit on one.
        let first = Self.state(1, small)
        #expect(Self.pages(pager, first, limit: 100) == [[1, 2, 3]])
        // Campaign 2 now takes most of a page by itself: 1 and 2 no longer fit together, nor 2 and 3.
        let big = Self.campaign(2, name: String(repeating: "x", count: SyncAPI.maxPageBytes - size))
        #expect(PageBound.bytes(of: big) > SyncAPI.maxPageBytes - size)
        let second = Self.state(2, [small[0], big, small[2]])
        #expect(Self.pages(pager, second, limit: 100) == [[1], [2], [3]])
        // And back.
        let third = Self.state(3, small)
        #expect(Self.pages(pager, third, limit: 100) == [[1, 2, 3]])
    }
}
