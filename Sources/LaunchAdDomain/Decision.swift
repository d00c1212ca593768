import JSONRPC

/// What an edge knows of a creative's bytes (from campaignd, verified when downloaded).
public struct CreativeFacts: Sendable, Hashable, Codable {
    public var sha256: String
    public var contentType: String
    public var width: Int
    public var height: Int
    public var size: Int

    public init(sha256: String, contentType: String, width: Int, height: Int, size: Int) {
        self.sha256 = sha256
        self.contentType = contentType
        self.width = width
        self.height = height
        self.size = size
    }
}

/// A launch query, validated. Its members are constants: made with `var` members, the initializer costs a copy of
/// the whole request (a retain and a release of each string) on every query.
public struct LaunchRequest: Sendable {
    public let app: String
    public let platform: String
    public let appVersion: AppVersion
    public let region: String?
    public let locale: String?
    public let deviceId: String?
    public let screen: (width: Int, height: Int)?
    public let launchType: LaunchType
    public let backgroundSeconds: Int?
    public let cached: Set<String>

    public init(app: String, platform: String, appVersion: AppVersion, region: String? = nil, locale: String? = nil,
                deviceId: String? = nil, screen: (width: Int, height: Int)? = nil, launchType: LaunchType = .cold,
                backgroundSeconds: Int? = nil, cached: Set<String> = []) {
        self.app = app
        self.platform = platform
        self.appVersion = appVersion
        self.region = region
        self.locale = locale
        self.deviceId = deviceId
        self.screen = screen
        self.launchType = launchType
        self.backgroundSeconds = backgroundSeconds
        self.cached = cached
    }
}

/// The fixed part of a ``DeviceView``: its rotation and how many of each kind of element follow.
struct DeviceViewHeader: Sendable {
    let rotation: Int
    let campaigns: Int32
    let variants: Int32
    let impressions: Int32

    /// The elements that follow: the campaigns, the variants, and two per impression.
    var elementCount: Int { Int(campaigns) + Int(variants) + 2 * Int(impressions) }
}

/// What the engine knows of one device: impressions per campaign (for caps) and what it has seen in the current
/// rotation (so the rotation moves on after an impression and does not repeat before the others were seen).
///
/// Immutable, and one allocation (``DeviceViewStorage``): the rotation and counts, then the campaigns seen, the variants seen (by
/// ``variantKey(_:)``) and the impressions as (campaign, milliseconds) pairs, grouped by campaign and oldest first.
/// The edge keeps one per device; a query takes it as one reference and reads it in place, where a structure of
/// collections cost a cache miss per collection on a device not asked for lately.
public struct DeviceView: @unchecked Sendable {
    // Sendable: the storage is never written after `make` fills it.
    let storage: DeviceViewStorage

    /// A view of these facts. `seenCampaigns` and `variantKeys` are kept as given (without repeats, as sets).
    public static func make(impressions: [Int64: [Timestamp]] = [:], seenCampaigns: [Int64] = [], variantKeys: [UInt64] = [],
                            rotation: Int = 0) -> DeviceView {
        let campaigns = uniqued(seenCampaigns), variants = uniqued(variantKeys)
        let shown = impressions.filter { !$0.value.isEmpty }.sorted { $0.key < $1.key }
        let pairs = shown.reduce(0) { $0 + $1.value.count }
        let header = DeviceViewHeader(rotation: rotation, campaigns: Int32(campaigns.count), variants: Int32(variants.count),
                                      impressions: Int32(pairs))
        return filled(header) { elements in
            var next = elements
            for id in campaigns { next.initialize(to: id); next += 1 }
            for key in variants { next.initialize(to: Int64(bitPattern: key)); next += 1 }
            for (campaign, times) in shown {
                for time in times.sorted() {
                    next.initialize(to: campaign)
                    (next + 1).initialize(to: time.milliseconds)
                    next += 2
                }
            }
        }
    }

    /// A view of `header`'s counts, its elements written by `write` (exactly as many as the header says).
    private static func filled(_ header: DeviceViewHeader, _ write: (UnsafeMutablePointer<Int64>) -> Void) -> DeviceView {
        let buffer = DeviceViewStorage.create(minimumCapacity: header.elementCount) { _ in header }
        buffer.withUnsafeMutablePointerToElements(write)
        return DeviceView(storage: unsafeDowncast(buffer, to: DeviceViewStorage.self))
    }

    /// The seen campaigns and variants a rotation holds at most: at this many, the next impression starts it over.
    public static let rotationLimit = 64

    /// This view after an impression of `campaign`, a campaign without a cap: the campaign and `variant` seen (a
    /// list that has reached ``rotationLimit`` starts over first), the rotation one step on, and no times kept for
    /// `campaign` (a cap it had was lifted); the other campaigns' times as they were. The same view as `make` gives
    /// for those facts, written straight from this one's elements (reports are answered on the socket's thread,
    /// between queries).
    public func seeing(uncapped campaign: Int64, variant: UInt64?) -> DeviceView {
        storage.withUnsafeMutablePointers { header, elements in
            let old = header.pointee
            let campaigns = UnsafeBufferPointer(start: elements, count: Int(old.campaigns))
            let variants = UnsafeBufferPointer(start: elements + campaigns.count, count: Int(old.variants))
            let pairs = elements + campaigns.count + variants.count
            // Kept as they are when the rotation goes on; empty, then the new one, when it starts over.
            let keptCampaigns = campaigns.count >= Self.rotationLimit ? UnsafeBufferPointer(start: elements, count: 0) : campaigns
            let keptVariants = variants.count >= Self.rotationLimit ? UnsafeBufferPointer(start: pairs, count: 0) : variants
            let addCampaign = !keptCampaigns.contains(campaign)
            let addVariant = variant.map { !keptVariants.contains(Int64(bitPattern: $0)) } ?? false
            var dropped = 0
            for pair in 0..<Int(old.impressions) where pairs[2 * pair] == campaign { dropped += 1 }
            let header = DeviceViewHeader(rotation: old.rotation &+ 1, campaigns: Int32(keptCampaigns.count + (addCampaign ? 1 : 0)),
                                          variants: Int32(keptVariants.count + (addVariant ? 1 : 0)),
                                          impressions: old.impressions - Int32(dropped))
            return Self.filled(header) { target in
                var next = target
                for id in keptCampaigns { next.initialize(to: id); next += 1 }
                if addCampaign { next.initialize(to: campaign); next += 1 }
                for key in keptVariants { next.initialize(to: key); next += 1 }
                if addVariant, let variant { next.initialize(to: Int64(bitPattern: variant)); next += 1 }
                for pair in 0..<Int(old.impressions) where pairs[2 * pair] != campaign {
                    next.initialize(to: pairs[2 * pair])
                    (next + 1).initialize(to: pairs[2 * pair + 1])
                    next += 2
                }
            }
        }
    }

    /// The campaigns and variants a device's rotation holds after an impression of `campaign` (with `variant`).
    ///
    /// A list that has reached ``rotationLimit`` starts over first. Within a rotation nothing repeats: a campaign is
    /// chosen again only once the device has seen its whole group (see ``DecisionEngine/rotationGroup(of:in:)``), so a
    /// campaign seen again starts its group's rotation over, the group's campaigns leaving the list and it coming
    /// last; likewise a variant seen again starts its campaign's variants (`campaignVariants`) over. The lists keep
    /// the order things were shown in, which is how the next choice knows the one shown last. `group` and
    /// `campaignVariants` are asked for only when something is seen again.
    public static func rotated(campaigns: [Int64], variants: [UInt64], after campaign: Int64, variant: UInt64?,
                               group: () -> [Int64], campaignVariants: () -> [UInt64]) -> (campaigns: [Int64], variants: [UInt64]) {
        var campaigns = campaigns.count >= rotationLimit ? [] : campaigns
        var variants = variants.count >= rotationLimit ? [] : variants
        if campaigns.contains(campaign) {
            let restarting = Set(group()).union([campaign])
            campaigns.removeAll(where: restarting.contains)
        }
        campaigns.append(campaign)
        if let variant {
            if variants.contains(variant) {
                let restarting = Set(campaignVariants()).union([variant])
                variants.removeAll(where: restarting.contains)
            }
            variants.append(variant)
        }
        return (campaigns, variants)
    }

    /// The same, with the variants named by their sha256.
    public static func make(impressions: [Int64: [Timestamp]] = [:], seenCampaigns: [Int64] = [], seenVariants: [String],
                            rotation: Int = 0) -> DeviceView {
        make(impressions: impressions, seenCampaigns: seenCampaigns, variantKeys: seenVariants.map(variantKey), rotation: rotation)
    }

    private static func uniqued<T: Hashable>(_ values: [T]) -> [T] {
        var seen = Set<T>()
        return values.filter { seen.insert($0).inserted }
    }

    public static let unknown = DeviceView.make()

    /// A variant's key: the first 64 bits of its sha256 when the text is one (64 lowercase hex digits), else a hash
    /// of the whole text.
    public static func variantKey(_ sha256: String) -> UInt64 {
        var key: UInt64 = 0, count = 0, hex = true
        for byte in sha256.utf8 {
            count += 1
            guard count <= 16 else { hex = hex && (byte &- UInt8(ascii: "0") < 10 || byte &- UInt8(ascii: "a") < 6); continue }
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): key = key << 4 | UInt64(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): key = key << 4 | UInt64(byte - UInt8(ascii: "a") + 10)
            default: hex = false
            }
        }
        if hex && count == 64 { return key }
        return DecisionEngine.mix(sha256.utf8.reduce(0xCBF2_9CE4_8422_2325) { ($0 ^ UInt64($1)) &* 0x0000_0100_0000_01B3 } ^ UInt64(count))
    }

    /// Grows with each impression: it moves the stable choice on.
    public var rotation: Int { storage.header.rotation }

    /// Campaigns seen since the rotation last started over, in the order first seen.
    public var seenCampaigns: [Int64] {
        storage.withUnsafeMutablePointers { header, elements in Array(UnsafeBufferPointer(start: elements, count: Int(header.pointee.campaigns))) }
    }

    /// Variants seen since the rotation last started over, by ``variantKey(_:)``.
    public var variantKeys: [UInt64] {
        storage.withUnsafeMutablePointers { header, elements in
            UnsafeBufferPointer(start: elements + Int(header.pointee.campaigns), count: Int(header.pointee.variants)).map { UInt64(bitPattern: $0) }
        }
    }

    /// Impression times per campaign, oldest first.
    public var impressions: [Int64: [Timestamp]] {
        storage.withUnsafeMutablePointers { header, elements in
            var result: [Int64: [Timestamp]] = [:]
            let start = elements + Int(header.pointee.campaigns + header.pointee.variants)
            for pair in 0..<Int(header.pointee.impressions) {
                result[start[2 * pair], default: []].append(Timestamp(milliseconds: start[2 * pair + 1]))
            }
            return result
        }
    }

    var hasSeenAnyCampaign: Bool { storage.header.campaigns > 0 }
    var hasSeenAnyVariant: Bool { storage.header.variants > 0 }

    public func hasSeen(campaign id: Int64) -> Bool {
        storage.withUnsafeMutablePointers { header, elements in
            for offset in 0..<Int(header.pointee.campaigns) where elements[offset] == id { return true }
            return false
        }
    }

    /// Of the campaigns seen in the current rotation that `isMember` takes, the one shown last.
    func lastSeen(campaignWhere isMember: (Int64) -> Bool) -> Int64? {
        storage.withUnsafeMutablePointers { header, elements in
            for offset in (0..<Int(header.pointee.campaigns)).reversed() where isMember(elements[offset]) { return elements[offset] }
            return nil
        }
    }

    /// Of the variants seen in the current rotation that `isMember` takes, the one shown last.
    func lastSeen(variantWhere isMember: (UInt64) -> Bool) -> UInt64? {
        storage.withUnsafeMutablePointers { header, elements in
            let start = elements + Int(header.pointee.campaigns)
            for offset in (0..<Int(header.pointee.variants)).reversed() where isMember(UInt64(bitPattern: start[offset])) {
                return UInt64(bitPattern: start[offset])
            }
            return nil
        }
    }

    public func hasSeen(variant key: UInt64) -> Bool {
        storage.withUnsafeMutablePointers { header, elements in
            let start = elements + Int(header.pointee.campaigns), wanted = Int64(bitPattern: key)
            for offset in 0..<Int(header.pointee.variants) where start[offset] == wanted { return true }
            return false
        }
    }

    /// Impressions of `campaign` within the last `hours` before `now`.
    public func shows(of campaign: Int64, hours: Int, now: Timestamp) -> Int {
        let since = now.milliseconds - Int64(hours) * 3_600_000
        return storage.withUnsafeMutablePointers { header, elements in
            let start = elements + Int(header.pointee.campaigns + header.pointee.variants)
            // The pairs are grouped by campaign in ascending order, oldest first within a group: find the end of the
            // campaign's group, then count back while the times are recent enough.
            var low = 0, high = Int(header.pointee.impressions)
            while low < high {
                let middle = (low + high) / 2
                if start[2 * middle] <= campaign { low = middle + 1 } else { high = middle }
            }
            var count = 0, pair = low - 1
            while pair >= 0, start[2 * pair] == campaign, start[2 * pair + 1] > since {
                count += 1
                pair -= 1
            }
            return count
        }
    }
}

/// The one allocation of a ``DeviceView``.
final class DeviceViewStorage: ManagedBuffer<DeviceViewHeader, Int64> {
    deinit {
        _ = withUnsafeMutablePointers { header, elements in
            elements.deinitialize(count: header.pointee.elementCount)
        }
    }
}

/// The engine's answer: a campaign and one of its creatives, or none; and the ids the client must forget.
public struct Decision: Sendable {
    /// The chosen campaign, prepared (see ``Candidate``).
    public var candidate: Candidate?
    public var held: HeldCreative?
    public var revoked: [Int64]

    public var campaign: Campaign? { candidate?.campaign }
    public var creative: CreativeFacts? { held?.facts }
}

/// A creative of a campaign that the edge holds, with what the choice needs precomputed. A class, so the query
/// path passes one reference instead of copying its strings and prepared bytes.
public final class HeldCreative: Sendable {
    public let facts: CreativeFacts
    public let weight: Int
    /// `/creatives/{sha256}`, the path of its bytes on the edge's HTTP server.
    public let path: String
    /// log(width / height), so the nearest aspect ratio is a subtraction.
    let logAspect: Double
    /// Its sha256 as a device's history keeps it (``DeviceView/variantKey(_:)``).
    public let variantKey: UInt64
    /// The launch answer's members that depend only on the campaign and this creative, as JSON text, written once
    /// when the state changes instead of on every query (see ``AnswerParts``).
    public let answerParts: AnswerParts
    /// The same for a `launch.prefetch` answer's item: the creative with its campaign's id and window.
    public let prefetchParts: AnswerParts

    init(facts: CreativeFacts, weight: Int, path: String, logAspect: Double, answerParts: AnswerParts, prefetchParts: AnswerParts) {
        self.facts = facts
        self.weight = weight
        self.path = path
        self.logAspect = logAspect
        variantKey = DeviceView.variantKey(facts.sha256)
        self.answerParts = answerParts
        self.prefetchParts = prefetchParts
    }
}

/// The members of a launch answer that are the same for every query answered with one campaign and creative, in
/// the order and form the answer's `Codable` encoding gives (the launch answer's tests hold the two equal). Only
/// the start of `imgUrl`, the edge's base URL, goes between them. A prefetch answer's items are prepared the same
/// way, around the start of their `url`.
public struct AnswerParts: Sendable {
    /// `{"hasAd":true,"id":…,"version":…,"imgUrl":"`
    public let head: [UInt8]
    /// The rest of `imgUrl` (the creative's path) and its closing quote, then `,"creative":{…},"jumpType":…,…,
    /// "expiresAt":"…"`
    public let tail: [UInt8]

    init(campaign: Campaign, facts: CreativeFacts, path: String, showMoment: String, expiresAt: String) {
        var head = JSONWriter(reservingCapacity: 64)
        head.writeRaw("{\"hasAd\":true,\"id\":")
        head.write(int: Int(campaign.id))
        head.writeRaw(",\"version\":")
        head.write(int: campaign.version)
        head.writeRaw(",\"imgUrl\":\"")
        self.head = head.bytes
        var tail = JSONWriter(reservingCapacity: 400)
        Self.writePathEnd(path, into: &tail)
        tail.writeRaw(",\"creative\":{\"sha256\":")
        tail.write(string: facts.sha256)
        Self.writeShape(facts, into: &tail)
        tail.writeRaw("},\"jumpType\":")
        tail.write(string: campaign.jump.type.rawValue)
        tail.writeRaw(",\"jumpValue\":")
        tail.write(string: campaign.jump.value)
        tail.writeRaw(",\"showMoment\":")
        tail.write(string: showMoment)
        tail.writeRaw(",\"countdown\":")
        tail.write(int: campaign.countdown)
        tail.writeRaw(campaign.skippable ? ",\"skippable\":true" : ",\"skippable\":false")
        if let skipAfter = campaign.skipAfter {
            tail.writeRaw(",\"skipAfter\":")
            tail.write(int: skipAfter)
        }
        tail.writeRaw(campaign.forced ? ",\"forced\":true" : ",\"forced\":false")
        tail.writeRaw(",\"expiresAt\":")
        tail.write(string: expiresAt)
        self.tail = tail.bytes
    }

    /// A prefetch item's members, in the order and form of its `Codable` encoding: `{"campaignId":…,"sha256":…,
    /// "url":"`, then (after the base URL) the path, `","contentType":…` through `"endsAt":"…"}`.
    init(prefetchOf campaign: Campaign, facts: CreativeFacts, path: String, startsAt: String, endsAt: String) {
        var head = JSONWriter(reservingCapacity: 128)
        head.writeRaw("{\"campaignId\":")
        head.write(int: Int(campaign.id))
        head.writeRaw(",\"sha256\":")
        head.write(string: facts.sha256)
        head.writeRaw(",\"url\":\"")
        self.head = head.bytes
        var tail = JSONWriter(reservingCapacity: 256)
        Self.writePathEnd(path, into: &tail)
        Self.writeShape(facts, into: &tail)
        tail.writeRaw(",\"startsAt\":")
        tail.write(string: startsAt)
        tail.writeRaw(",\"endsAt\":")
        tail.write(string: endsAt)
        tail.append(UInt8(ascii: "}"))
        self.tail = tail.bytes
    }

    /// The rest of a URL string after the base: the creative's path, escaped, and the closing quote.
    private static func writePathEnd(_ path: String, into json: inout JSONWriter) {
        var quotedPath = JSONWriter(reservingCapacity: path.utf8.count + 8)
        quotedPath.write(string: path)
        quotedPath.withUnsafeBytes { json.append(UnsafeRawBufferPointer(rebasing: $0.dropFirst())) }  // without its opening quote
    }

    /// `,"contentType":…,"width":…,"height":…,"size":…`
    private static func writeShape(_ facts: CreativeFacts, into json: inout JSONWriter) {
        json.writeRaw(",\"contentType\":")
        json.write(string: facts.contentType)
        json.writeRaw(",\"width\":")
        json.write(int: facts.width)
        json.writeRaw(",\"height\":")
        json.write(int: facts.height)
        json.writeRaw(",\"size\":")
        json.write(int: facts.size)
    }
}

/// A campaign prepared for the launch query: its targeting parsed and its held creatives resolved once, when the
/// state changes, instead of on every query. A class, so the query path passes references, not copies.
public final class Candidate: Sendable {
    public let campaign: Campaign
    let minVersion: AppVersion?
    let maxVersion: AppVersion?
    let locales: [String]?
    public let held: [HeldCreative]
    /// Parts of the answer that only change with the campaign, written once here rather than per query.
    public let showMoment: String
    public let expiresAtText: String

    init(_ campaign: Campaign, creatives: [String: CreativeFacts]) {
        self.campaign = campaign
        showMoment = campaign.launchTypes.map(\.rawValue).joined(separator: ",")
        expiresAtText = campaign.endsAt.rfc3339
        minVersion = campaign.targeting.appVersions?.min.flatMap(AppVersion.init)
        maxVersion = campaign.targeting.appVersions?.max.flatMap(AppVersion.init)
        locales = campaign.targeting.locales?.map { $0.lowercased() }
        let showMoment = self.showMoment, expiresAt = self.expiresAtText, startsAt = campaign.startsAt.rfc3339
        held = campaign.creatives.compactMap { ref in
            creatives[ref.sha256].map { facts in
                let path = "/creatives/" + facts.sha256
                return HeldCreative(facts: facts, weight: ref.weight, path: path,
                                    logAspect: log(Double(max(1, facts.width)) / Double(max(1, facts.height))),
                                    answerParts: AnswerParts(campaign: campaign, facts: facts, path: path, showMoment: showMoment,
                                                             expiresAt: expiresAt),
                                    prefetchParts: AnswerParts(prefetchOf: campaign, facts: facts, path: path, startsAt: startsAt,
                                                               endsAt: expiresAt))
            }
        }
    }
}

/// The campaigns of one app, indexed for the launch query. Immutable: the edge builds a new one per change.
public struct AppIndex: Sendable {
    /// Campaigns that may still serve (scheduled, live), forced first, then by priority, then by id.
    public var candidates: [Candidate] { didSet { earliestEnd = Self.earliestEnd(candidates) } }
    /// Expired and deleted campaigns, most recent first (bounded), for `revoked`.
    public var revoked: [Int64]
    /// The earliest end among the candidates: until the clock reaches it, none has ended by the clock, and a
    /// decision need not look for them.
    private(set) var earliestEnd: Timestamp

    public init(candidates: [Candidate], revoked: [Int64]) {
        self.candidates = candidates
        self.revoked = revoked
        earliestEnd = Self.earliestEnd(candidates)
    }

    private static func earliestEnd(_ candidates: [Candidate]) -> Timestamp {
        candidates.lazy.map(\.campaign.endsAt).min() ?? Timestamp(milliseconds: .max)
    }
}

/// The launch decision: a pure function of the edge's campaigns, the request, the device's history and the time.
public enum DecisionEngine {
    /// At most this many revoked ids are returned per answer.
    public static let revokedLimit = 100

    /// Builds the per-app index from a set of campaigns and the creatives the edge holds.
    public static func index(_ campaigns: some Sequence<Campaign>, creatives: [String: CreativeFacts]) -> [String: AppIndex] {
        index(campaigns, creatives: creatives, apps: nil)
    }

    /// `index` with the entries of `apps` built again from `campaigns` and every other app's entry kept: for a
    /// change that touches a few apps among many.
    public static func reindex(_ index: [String: AppIndex], apps: Set<String>, campaigns: some Sequence<Campaign>,
                               creatives: [String: CreativeFacts]) -> [String: AppIndex] {
        var result = index
        for app in apps { result[app] = nil }
        for (app, entry) in Self.index(campaigns, creatives: creatives, apps: apps) { result[app] = entry }
        return result
    }

    private static func index(_ campaigns: some Sequence<Campaign>, creatives: [String: CreativeFacts], apps: Set<String>?) -> [String: AppIndex] {
        var candidates: [String: [Campaign]] = [:]
        var revoked: [String: [Campaign]] = [:]
        for campaign in campaigns {
            if let apps, !apps.contains(campaign.app) { continue }
            switch campaign.state {
            case .scheduled, .live: candidates[campaign.app, default: []].append(campaign)
            case .expired, .deleted: revoked[campaign.app, default: []].append(campaign)
            case .paused: continue
            }
        }
        var result: [String: AppIndex] = [:]
        for app in Set(candidates.keys).union(revoked.keys) {
            let sorted = (candidates[app] ?? []).sorted { a, b in
                if a.forced != b.forced { return a.forced }
                if a.priority != b.priority { return a.priority > b.priority }
                return a.id < b.id
            }
            let gone = (revoked[app] ?? []).sorted { $0.updatedAt > $1.updatedAt }.prefix(revokedLimit).map(\.id)
            result[app] = AppIndex(candidates: sorted.map { Candidate($0, creatives: creatives) }, revoked: Array(gone))
        }
        return result
    }

    /// Decides the answer, without allocating on the way (but for the revoked list, when the clock ends a campaign).
    /// - Parameters:
    ///   - now: the edge's clock.
    ///   - serviceNow: the edge's estimate of campaignd's clock; a campaign is over once either clock passed its end.
    public static func decide(_ request: LaunchRequest, index: AppIndex?, device: DeviceView, now: Timestamp,
                              serviceNow: Timestamp? = nil) -> Decision {
        guard let index else { return Decision(candidate: nil, held: nil, revoked: []) }
        let endClock = max(now, serviceNow ?? now)
        var revoked = index.revoked
        let candidates = index.candidates
        // The campaign's fields are read in place (a copy of the whole campaign costs a reference count per field).
        func eligible(_ candidate: Candidate) -> Bool {
            candidate.campaign.endsAt > endClock && candidate.campaign.startsAt <= now && !candidate.held.isEmpty
                && matches(candidate, request) && underCap(candidate.campaign.id, candidate.campaign.frequencyCap, device, now)
        }
        if index.earliestEnd <= endClock {
            // Campaigns ended by the clock come first: campaignd has not said so yet (or cannot reach the edge), and
            // they are the takedowns a client is the likeliest to still hold. The limit drops the oldest of the rest.
            var ended: [Int64] = []
            for candidate in candidates where candidate.campaign.endsAt <= endClock && ended.count < revokedLimit {
                ended.append(candidate.campaign.id)
            }
            revoked = ended + index.revoked.prefix(revokedLimit - ended.count)
        }
        // Candidates are sorted: the first eligible one leads the best group (same forced flag and priority).
        guard let first = candidates.firstIndex(where: eligible) else {
            return Decision(candidate: nil, held: nil, revoked: revoked)
        }
        let forced = candidates[first].campaign.forced, priority = candidates[first].campaign.priority
        var end = first + 1
        while end < candidates.count, candidates[end].campaign.forced == forced, candidates[end].campaign.priority == priority {
            end += 1
        }
        let seed = stableSeed(request.deviceId, now: now, rotation: device.rotation)
        let seenNone = !device.hasSeenAnyCampaign
        let chosen = withUnsafeTemporaryAllocation(of: Bool.self, capacity: end - first) { inGroup -> Int in
            var unseenWeight = 0, allWeight = 0, eligibleCount = 0
            for offset in 0..<(end - first) {
                let candidate = candidates[first + offset]
                let ok = offset == 0 || eligible(candidate)
                inGroup[offset] = ok
                guard ok else { continue }
                eligibleCount += 1
                allWeight += max(1, candidate.campaign.weight)
                if seenNone || !device.hasSeen(campaign: candidate.campaign.id) { unseenWeight += max(1, candidate.campaign.weight) }
            }
            // Not repeating what the device saw, unless it saw them all: then the rotation starts over, with any of
            // them but the one shown last.
            let onlyUnseen = unseenWeight > 0
            if !onlyUnseen && eligibleCount > 1 {
                func member(_ id: Int64) -> Int? { (0..<(end - first)).first { inGroup[$0] && candidates[first + $0].campaign.id == id } }
                if let last = device.lastSeen(campaignWhere: { member($0) != nil }), let offset = member(last) {
                    inGroup[offset] = false
                    allWeight -= max(1, candidates[first + offset].campaign.weight)
                }
            }
            var point = Int(mix(seed) % UInt64(onlyUnseen ? unseenWeight : allWeight))
            for offset in 0..<(end - first) where inGroup[offset] {
                let candidate = candidates[first + offset]
                if onlyUnseen && !seenNone && device.hasSeen(campaign: candidate.campaign.id) { continue }
                point -= max(1, candidate.campaign.weight)
                if point < 0 { return first + offset }
            }
            return first
        }
        let candidate = candidates[chosen]
        let creative = chooseCreative(candidate, request: request, device: device, seed: seed)
        return Decision(candidate: candidate, held: creative, revoked: revoked)
    }

    /// Whether the campaign targets this request (platform, version range, region, locale, launch type).
    public static func matches(_ candidate: Candidate, _ request: LaunchRequest) -> Bool {
        let campaign = candidate.campaign
        guard campaign.launchTypes.contains(request.launchType) else { return false }
        if request.launchType == .hot {
            guard let seconds = request.backgroundSeconds, seconds >= (campaign.minBackgroundSeconds ?? 0) else { return false }
        }
        let targeting = campaign.targeting
        if let platforms = targeting.platforms, !platforms.contains(request.platform) { return false }
        if let min = candidate.minVersion, request.appVersion < min { return false }
        if let max = candidate.maxVersion, !(request.appVersion < max) { return false }
        if let regions = targeting.regions {
            // Targeted regions are lower case (campaign rules); a request's matches in any case of its ASCII letters.
            guard let region = request.region, regions.contains(where: { sameIgnoringASCIICase(lowercased: $0, region) }) else {
                return false
            }
        }
        if let locales = candidate.locales {
            guard let locale = request.locale, locales.contains(where: { sameIgnoringASCIICase(lowercased: $0, locale) }) else {
                return false
            }
        }
        return true
    }

    /// Whether `text` is `lowercased` (an ASCII language tag in lower case) but for the case of its ASCII letters:
    /// what `lowercased == text.lowercased()` says for such a tag, without making a string. (A character outside
    /// ASCII takes more than one byte, so a text holding one never has as many bytes as an ASCII tag it could
    /// lower-case to.)
    static func sameIgnoringASCIICase(lowercased: String, _ text: String) -> Bool {
        guard lowercased.utf8.count == text.utf8.count else { return false }
        for (expected, byte) in zip(lowercased.utf8, text.utf8) {
            let lower = byte &- UInt8(ascii: "A") < 26 ? byte | 0x20 : byte
            guard lower == expected else { return false }
        }
        return true
    }

    static func underCap(_ campaign: Int64, _ cap: FrequencyCap?, _ device: DeviceView, _ now: Timestamp) -> Bool {
        guard let cap else { return true }
        return device.shows(of: campaign, hours: cap.hours, now: now) < cap.shows
    }

    /// How much farther a creative's aspect ratio may be from the screen's than the nearest one's and still count as
    /// nearest (in log(width / height), about 2%): shapes that differ by a few pixels are the same shape.
    static let aspectTolerance = 0.02

    /// The screen's log(width / height), what the creatives' aspect ratios are compared with; `nil` without a screen.
    static func logAspect(_ screen: (width: Int, height: Int)?) -> Double? {
        guard let screen, screen.width > 0, screen.height > 0 else { return nil }
        return log(Double(screen.width) / Double(screen.height))
    }

    /// How far the nearest of `held` is from `target`.
    static func nearestDistance(_ held: [HeldCreative], to target: Double) -> Double {
        var best = Double.infinity
        for creative in held { best = min(best, abs(creative.logAspect - target)) }
        return best
    }

    /// The creatives of `candidate` that a launch query from `screen` may be answered with: those whose aspect ratio
    /// is nearest the screen's (every one without a screen), in their order. What a client on that screen needs to
    /// download; the others it would never be shown.
    public static func creatives(of candidate: Candidate, for screen: (width: Int, height: Int)?) -> [HeldCreative] {
        let held = candidate.held
        guard held.count > 1, let target = logAspect(screen) else { return held }
        let limit = nearestDistance(held, to: target) + aspectTolerance
        return held.filter { abs($0.logAspect - target) <= limit }
    }

    /// The creative whose aspect ratio is nearest the screen's; among the nearest, one the client holds, then the
    /// variants not yet seen, by weight.
    static func chooseCreative(_ candidate: Candidate, request: LaunchRequest, device: DeviceView, seed: UInt64) -> HeldCreative? {
        let held = candidate.held
        guard !held.isEmpty else { return nil }
        if held.count == 1 { return held[0] }
        let target = logAspect(request.screen)
        let best = target.map { nearestDistance(held, to: $0) } ?? .infinity
        // Each creative's standing, worked out once (the client's set is asked only when it holds something:
        // hashing a sha256 costs more than the rest of the choice).
        let cached = request.cached, seenNone = !device.hasSeenAnyVariant
        let near: UInt8 = 1, inCache: UInt8 = 2, unseen: UInt8 = 4, pool: UInt8 = 8
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: held.count) { flags -> HeldCreative in
            var anyCached = false
            for (offset, creative) in held.enumerated() {
                var flag: UInt8 = 0
                if target.map({ abs(creative.logAspect - $0) <= best + aspectTolerance }) ?? true {
                    flag = near
                    if !cached.isEmpty && cached.contains(creative.facts.sha256) {
                        flag |= inCache
                        anyCached = true
                    }
                }
                flags[offset] = flag
            }
            // The pool: the nearest, and of those the ones the client holds when it holds any.
            var anyUnseen = false, pooled = 0
            for offset in held.indices where flags[offset] & near != 0 && (!anyCached || flags[offset] & inCache != 0) {
                flags[offset] |= pool
                pooled += 1
                if seenNone || !device.hasSeen(variant: held[offset].variantKey) {
                    flags[offset] |= unseen
                    anyUnseen = true
                }
            }
            // All of the pool seen: the variants' rotation starts over, with any of them but the one shown last.
            if !anyUnseen && pooled > 1,
               let last = device.lastSeen(variantWhere: { key in held.indices.contains { flags[$0] & pool != 0 && held[$0].variantKey == key } }),
               held.indices.contains(where: { flags[$0] & pool != 0 && held[$0].variantKey != last }) {
                for offset in held.indices where held[offset].variantKey == last { flags[offset] &= ~pool }
            }
            // Chosen: in the pool, and not yet seen unless all of the pool was.
            let chosen = anyUnseen ? pool | unseen : pool
            var total = 0
            for offset in held.indices where flags[offset] & chosen == chosen { total += max(1, held[offset].weight) }
            var point = Int(mix(seed ^ 0x9E37_79B9_7F4A_7C15) % UInt64(max(1, total)))
            for offset in held.indices where flags[offset] & chosen == chosen {
                point -= max(1, held[offset].weight)
                if point < 0 { return held[offset] }
            }
            return held.indices.first { flags[$0] & chosen == chosen }.map { held[$0] } ?? held[0]
        }
    }

    /// The campaigns a launch query chooses `campaign` among: its app's candidates with its forced flag and priority
    /// (the decision's group, before the request's targeting, the clock and caps narrow it). A device's rotation over
    /// them starts over once it has seen them all (see ``DeviceView/rotated(campaigns:variants:after:variant:group:campaignVariants:)``).
    public static func rotationGroup(of campaign: Campaign, in index: AppIndex?) -> [Int64] {
        (index?.candidates ?? []).filter { $0.campaign.forced == campaign.forced && $0.campaign.priority == campaign.priority }
            .map(\.campaign.id)
    }

    /// A seed stable for a device within a UTC day and a rotation step (anonymous requests share one).
    public static func stableSeed(_ deviceId: String?, now: Timestamp, rotation: Int) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325  // FNV-1a
        var id = deviceId ?? ""
        id.withUTF8 { utf8 in
            for byte in utf8 {
                hash ^= UInt64(byte)
                hash &*= 0x0000_0100_0000_01B3
            }
        }
        let day = UInt64(bitPattern: now.milliseconds / 86_400_000)
        return mix(hash ^ mix(day) ^ mix(UInt64(rotation) &+ 1))
    }

    static func mix(_ value: UInt64) -> UInt64 {
        var z = value &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
