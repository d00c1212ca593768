import JSONRPC
import LaunchAdDomain

/// The values the methods' examples are made of: one campaign with every field set, its creative, an edge.
///
/// The OpenRPC documents show them; proto-docs/examples holds the same calls as golden files, which the tests
/// decode with the real codec and validate against the schemas.
public enum APIExamples {
    /// The bytes of the creative below: a PNG header of 1080x1920 pixels (what campaignd reads of a PNG).
    public static let creativeBase64 = "iVBORw0KGgoAAAANSUhEUgAABDgAAAeACAYAAAAAAAAAZmlsbGVyLTA="
    public static let creative = CreativeFacts(sha256: "27022c390fe7c8bc798817eb2bb916dcbb79b9a6f87c46519a9787c23e71354e",
                                               contentType: "image/png", width: 1080, height: 1920, size: 41)
    public static let otherSHA256 = "5f70bf18a086007016e948b04aed3b82103a36bea41755b6cddfaf10ace3c6ef"
    public static let epoch = "6f1c2a9e0b7d4e3f"
    public static let created = Timestamp(rfc3339: "2026-11-01T08:30:00Z")!
    public static let updated = Timestamp(rfc3339: "2026-11-02T09:15:00.250Z")!
    /// An app in the Chinese market.
    public static let app = AppSettings(app: "com.example.shop", market: .cn, timezone: "Asia/Shanghai", updatedAt: updated)

    /// The fields an operator gives for the campaign.
    public static let fields = CampaignFields(
        name: "Double 11 sale", app: "com.example.shop",
        startsAt: Timestamp(rfc3339: "2026-11-10T16:00:00Z")!, endsAt: Timestamp(rfc3339: "2026-11-12T16:00:00Z")!,
        priority: 80, weight: 100, forced: false, countdown: 5, skippable: true, skipAfter: 2,
        launchTypes: [.cold, .hot], minBackgroundSeconds: 600,
        jump: Jump(type: .url, value: "https://shop.example.com/double11"),
        creatives: [CreativeRef(sha256: creative.sha256, weight: 100)],
        targeting: Targeting(platforms: ["ios", "android"], appVersions: VersionRange(min: "5.2.0", max: "7.0"),
                             regions: ["cn-east", "cn-south"], locales: ["zh-CN"]),
        frequencyCap: FrequencyCap(shows: 3, hours: 24))

    /// The campaign as campaignd keeps it after creating it.
    public static let campaign = Campaign(
        id: 42, name: "Double 11 sale", app: "com.example.shop",
        startsAt: fields.startsAt!, endsAt: fields.endsAt!, priority: 80, weight: 100, forced: false, countdown: 5,
        skippable: true, skipAfter: 2, launchTypes: [.cold, .hot], minBackgroundSeconds: 600, jump: fields.jump!,
        creatives: fields.creatives!, targeting: fields.targeting!, frequencyCap: fields.frequencyCap,
        state: .scheduled, version: 1, createdAt: created, updatedAt: created)

    /// The campaign after an operation or an update.
    public static func campaign(_ change: (inout Campaign) -> Void) -> Campaign {
        var copy = campaign
        change(&copy)
        copy.version += 1
        copy.updatedAt = updated
        return copy
    }

    /// A short campaign with only the required fields and the defaults.
    public static let plainCampaign = Campaign(
        id: 7, name: "Spring launch", app: "com.example.news",
        startsAt: Timestamp(rfc3339: "2026-03-01T00:00:00Z")!, endsAt: Timestamp(rfc3339: "2026-03-08T00:00:00Z")!,
        priority: 50, weight: 100, forced: false, countdown: 3, skippable: true, skipAfter: nil, launchTypes: [.cold],
        minBackgroundSeconds: nil, jump: .none, creatives: [CreativeRef(sha256: otherSHA256)], targeting: .everyone,
        frequencyCap: nil, state: .live, version: 3, createdAt: created, updatedAt: updated)

    public static let screen = LaunchQueryParams.Screen(width: 1170, height: 2532)
}
