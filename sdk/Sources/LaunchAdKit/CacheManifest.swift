import Foundation

/// What the SDK's cache holds, saved as `manifest.json` in the state folder (written whole to a temporary file and
/// renamed over the old one): each campaign it knows with its window and what showing it needs, and each creative
/// file with its size and when it was last used (for the least recently used to go first).
struct CacheManifest: Codable, Sendable, Equatable {
    /// A campaign the edge told the device about, in a launch answer (which says how to show it) or a prefetch
    /// (which gives only its window and creatives).
    struct Campaign: Codable, Sendable, Equatable {
        var id: Int64
        var startsAt: Date?
        /// When it ends (the answer's `expiresAt`, the prefetch's `endsAt`): never shown from then on, by the
        /// device's clock, online or not.
        var expiresAt: Date
        /// The creatives of it the edge listed.
        var creatives: [String]
        /// How to show it, once a launch answer named it.
        var presentation: Presentation?
        /// When the edge last answered it (the latest answer is the one a cached launch shows).
        var answeredAt: Date?
        /// The least `backgroundSeconds` with which the edge answered it to a hot launch at this version: the SDK
        /// shows it from the cache at a hot start only after at least that long in the background (the answer does
        /// not carry the campaign's `minBackgroundSeconds`, so the SDK learns a bound that is never below it).
        var hotAfterSeconds: Int?
    }

    /// What a launch answer says about showing a campaign.
    struct Presentation: Codable, Sendable, Equatable {
        var version: Int
        var sha256: String
        var contentType: String
        var countdown: Int
        var skippable: Bool
        var skipAfter: Int
        var jumpType: String
        var jumpValue: String?
        var forced: Bool
        /// The creative's pixel size, the campaign's `display` and `clickArea` (absent in manifests written before
        /// the SDK drew the ad: 1×1, full, button).
        var width: Int?
        var height: Int?
        var display: AdDisplay?
        var clickArea: AdClickArea?
        /// The campaign's `videoSound` (absent in manifests written before the SDK played sound: muted).
        var videoSound: Bool?
        /// The campaign's `advertiser` and `paidBy`, when it has them.
        var advertiser: String?
        var paidBy: String?
        /// The media's length in milliseconds (absent in manifests written before the edge said it: 0).
        var durationMs: Int?
    }

    struct Creative: Codable, Sendable, Equatable {
        var sha256: String
        var size: Int
        var contentType: String
        var lastUsed: Date
    }

    var campaigns: [Int64: Campaign] = [:]
    /// What the latest answer said to show, by launch type (`cold`, `hot`): a campaign's id, or none when the edge
    /// had no ad for the device. A cache-first launch shows that and nothing else (the edge knows caps and rotation).
    var next: [String: Int64] = [:]
    var creatives: [String: Creative] = [:]

    /// The creatives' bytes on disk, together.
    var bytes: Int { creatives.values.reduce(0) { $0 + $1.size } }

    /// The creatives some campaign it knows lists or shows.
    var used: Set<String> { Set(campaigns.values.flatMap { $0.creatives + ($0.presentation.map { [$0.sha256] } ?? []) }) }

    /// Forgets `ids` (revoked: expired, deleted or paused) and returns the creatives no campaign left uses.
    mutating func revoke(_ ids: [Int64]) -> [String] {
        var released: Set<String> = []
        for id in ids {
            next = next.filter { $0.value != id }
            guard let campaign = campaigns.removeValue(forKey: id) else { continue }
            released.formUnion(campaign.creatives)
            if let presentation = campaign.presentation { released.insert(presentation.sha256) }
        }
        return released.subtracting(used).sorted()
    }

    /// Forgets every campaign but `kept` and the launch choices of the others; returns the creatives no kept
    /// campaign uses.
    mutating func keep(only kept: Set<Int64>) -> [String] {
        campaigns = campaigns.filter { kept.contains($0.key) }
        next = next.filter { kept.contains($0.value) }
        let used = used
        return creatives.keys.filter { !used.contains($0) }.sorted()
    }

    /// Reads the manifest in `folder`; an empty one when there is none or it does not parse (the cache then fills
    /// again: creative files it no longer lists are removed by ``CreativeCache``).
    static func load(from file: URL) -> CacheManifest {
        guard let data = try? Data(contentsOf: file) else { return CacheManifest() }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return (try? decoder.decode(CacheManifest.self, from: data)) ?? CacheManifest()
    }

    /// Writes the manifest atomically (a temporary file renamed over the old one).
    func save(to file: URL) throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        encoder.outputFormatting = [.sortedKeys]
        try encoder.encode(self).write(to: file, options: .atomic)
    }
}
