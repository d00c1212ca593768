import HashTreeCollections
import LaunchAdDomain
import Locking

/// A value made from each campaign (its JSON, its size as a page counts it), kept by id while the campaign stays the
/// same, so that it is made again only for the campaigns that changed: a campaign kept is compared whole, not by its
/// version, as a restored older database may give a version again to other contents.
public final class CampaignMemo<Value: Sendable>: Sendable {
    private let entries = Locked<[Int64: (campaign: Campaign, value: Value)]>([:])
    private let make: @Sendable (Campaign) -> Value

    public init(_ make: @escaping @Sendable (Campaign) -> Value) {
        self.make = make
    }

    /// The value for `campaign`, kept or made now (and then kept).
    public func value(of campaign: Campaign) -> Value {
        if let entry = entries.withLock({ $0[campaign.id] }), entry.campaign == campaign { return entry.value }
        let value = make(campaign)
        entries.withLock { $0[campaign.id] = (campaign, value) }
        return value
    }

    /// The values for every campaign of `campaigns`, in order of id; only these are kept afterwards.
    public func values(inOrderOf campaigns: TreeDictionary<Int64, Campaign>) -> [Value] {
        entries.withLock { entries in
            var kept: [Int64: (campaign: Campaign, value: Value)] = [:]
            kept.reserveCapacity(campaigns.count)
            for (id, campaign) in campaigns {
                if let entry = entries[id], entry.campaign == campaign {
                    kept[id] = entry
                } else {
                    kept[id] = (campaign, make(campaign))
                }
            }
            entries = kept
            return kept.sorted { $0.key < $1.key }.map(\.value.value)
        }
    }

    /// Drops the values of campaigns that `campaigns` does not hold, when more are kept than it holds.
    public func keep(only campaigns: TreeDictionary<Int64, Campaign>) {
        entries.withLock { entries in
            if entries.count > campaigns.count { entries = entries.filter { campaigns[$0.key] != nil } }
        }
    }
}
