import JSONRPC
import LaunchAdDomain

/// Where a page of `sync.snapshot` or `sync.changes` stops: at `limit` items, or before the item whose campaign's JSON
/// would take the page past `maxBytes`; but never before the first, so that a campaign bigger than the bound still
/// travels, alone. campaignd's stores and relays cut their pages with it, so an edge pages the same below either.
public struct PageBound: Sendable {
    public let limit: Int
    public let maxBytes: Int
    /// The items taken so far, and their bytes.
    public private(set) var count = 0
    public private(set) var bytes = 0

    public init(limit: Int, maxBytes: Int = SyncAPI.maxPageBytes) {
        self.limit = limit
        self.maxBytes = maxBytes
    }

    /// Whether an item of `size` bytes still goes on the page; when it does, it is counted.
    public mutating func admits(_ size: Int) -> Bool {
        if count > 0 && (count >= limit || bytes + size > maxBytes) { return false }
        count += 1
        bytes += size
        return true
    }

    /// A campaign's size as the bound counts it: its JSON as the wire has it (what campaignd keeps in its store).
    public static func bytes(of campaign: Campaign) -> Int {
        var writer = JSONWriter(reservingCapacity: 1024)
        campaign.write(json: &writer)
        return writer.count
    }
}

extension ChangesParams {
    /// The most changes the page may hold: `limit`, 1 to ``SyncAPI/maxChangesPage``, 1000 when absent.
    public var pageLimit: Int { min(max(limit ?? SyncAPI.defaultChangesPage, 1), SyncAPI.maxChangesPage) }
}
