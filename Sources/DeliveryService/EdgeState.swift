import Atomics
import Crypto
import DurableFiles
import Foundation
import JSONRPC
import LaunchAdAPI
import LaunchAdDomain
import Synchronization

/// Everything an edge answers from, at one sequence number. Immutable: each applied change makes a new one, and
/// the query path reads the current one without locks.
public final class EdgeState: Sendable, AtomicReference {
    public let epoch: String
    public let seq: Int64
    public let campaigns: [Int64: Campaign]
    public let index: [String: AppIndex]
    /// Creatives whose bytes the edge holds, verified.
    public let creatives: [String: CreativeFacts]
    /// `epoch` and `seq` as the launch answer writes them.
    public let answerState: AnswerState
    /// `index` again, for the query path (see ``appIndex(_:)``).
    private let apps: AppTable

    public init(epoch: String, seq: Int64, campaigns: [Int64: Campaign], creatives: [String: CreativeFacts]) {
        self.epoch = epoch
        self.seq = seq
        self.campaigns = campaigns
        self.creatives = creatives
        index = DecisionEngine.index(campaigns.values, creatives: creatives, preparer: .json)
        answerState = AnswerState(epoch: epoch, seq: seq)
        apps = AppTable(index)
    }

    private init(epoch: String, seq: Int64, campaigns: [Int64: Campaign], creatives: [String: CreativeFacts], index: [String: AppIndex]) {
        self.epoch = epoch
        self.seq = seq
        self.campaigns = campaigns
        self.creatives = creatives
        self.index = index
        answerState = AnswerState(epoch: epoch, seq: seq)
        apps = AppTable(index)
    }

    /// `index[app]`, found with a cheap hash of the name's bytes rather than the dictionary's seeded one (most of the
    /// cost of a lookup by a short name).
    public func appIndex(_ app: String) -> AppIndex? { apps.find(app) }

    /// The state before any snapshot: nothing to answer from.
    public static let empty = EdgeState(epoch: "", seq: 0, campaigns: [:], creatives: [:])

    public convenience init(snapshot: Snapshot, creatives: [String: CreativeFacts]) {
        self.init(epoch: snapshot.epoch, seq: snapshot.seq,
                  campaigns: Dictionary(uniqueKeysWithValues: snapshot.campaigns.map { ($0.id, $0) }), creatives: creatives)
    }

    /// This state with `changes` applied (they must follow on from `seq`, in order).
    /// Only the index entries of the apps the changes touch are built again.
    public func applying(_ changes: [Change]) -> EdgeState {
        var campaigns = self.campaigns
        var seq = self.seq
        var apps = Set<String>()
        for change in changes where change.seq == seq + 1 {
            if let old = campaigns.updateValue(change.campaign, forKey: change.id) { apps.insert(old.app) }
            apps.insert(change.campaign.app)
            seq = change.seq
        }
        let index = DecisionEngine.reindex(index, apps: apps, campaigns: campaigns.values, creatives: creatives, preparer: .json)
        return EdgeState(epoch: epoch, seq: seq, campaigns: campaigns, creatives: creatives, index: index)
    }

    /// This state's campaigns with `creatives` instead of its own (itself when they are the same).
    public func with(creatives: [String: CreativeFacts]) -> EdgeState {
        if creatives == self.creatives { return self }
        return EdgeState(epoch: epoch, seq: seq, campaigns: campaigns, creatives: creatives)
    }

    /// This state knowing one more creative.
    public func adding(_ facts: CreativeFacts) -> EdgeState {
        var creatives = self.creatives
        creatives[facts.sha256] = facts
        return EdgeState(epoch: epoch, seq: seq, campaigns: campaigns, creatives: creatives)
    }

    /// The creatives that campaigns which may still be served refer to and the edge does not hold, each once, in the
    /// order to fetch them: forced campaigns' first, then by the campaigns' start.
    public var missingCreatives: [String] {
        // Only the campaigns that lack one are sorted: this runs on every heartbeat, and mostly nothing is missing.
        let waiting = campaigns.values.filter { campaign in
            !campaign.state.isFinal && campaign.creatives.contains { creatives[$0.sha256] == nil }
        }.sorted { a, b in
            if a.forced != b.forced { return a.forced }
            if a.startsAt != b.startsAt { return a.startsAt < b.startsAt }
            return a.id < b.id
        }
        var seen = Set<String>()
        return waiting.flatMap(\.creatives).map(\.sha256).filter { creatives[$0] == nil && seen.insert($0).inserted }
    }

    /// The creatives that campaigns which may still be served refer to (held or not).
    public var wantedCreatives: Set<String> {
        var wanted = Set<String>()
        for campaign in campaigns.values where !campaign.state.isFinal {
            for creative in campaign.creatives { wanted.insert(creative.sha256) }
        }
        return wanted
    }

    /// This state no longer holding `released` (their bytes are gone).
    public func forgetting(_ released: some Sequence<String>) -> EdgeState {
        var creatives = self.creatives
        for sha256 in released { creatives[sha256] = nil }
        return creatives.count == self.creatives.count ? self : EdgeState(epoch: epoch, seq: seq, campaigns: campaigns, creatives: creatives)
    }

    /// Whether it came from a snapshot (an empty state answers nothing).
    public var isLoaded: Bool { !epoch.isEmpty }
}

/// The current state, swapped whole. Reads are a single atomic load, with no lock; writers (the sync engine and
/// creative downloads) take turns, so neither undoes the other's change.
public final class StateCell: Sendable {
    private let current = ManagedAtomic<EdgeState>(.empty)
    private let writer = Mutex<Void>(())

    public init() {}

    public var state: EdgeState { current.load(ordering: .acquiring) }

    /// Replaces the state with `transform(current)`; returns the new state.
    @discardableResult
    public func update(_ transform: (EdgeState) -> EdgeState) -> EdgeState {
        writer.withLock { _ in
            let next = transform(current.load(ordering: .acquiring))
            current.store(next, ordering: .releasing)
            return next
        }
    }
}

/// The apps of an index in an open-addressed table under an FNV-1a hash of their names. Only names the index holds
/// are in it, at most half full, so a lookup of any name (chosen by a client or not) probes at most the run of
/// known names it lands in.
struct AppTable: Sendable {
    private let slots: [(name: String, entry: AppIndex)?]
    private let mask: Int

    init(_ index: [String: AppIndex]) {
        var size = 4
        while size < index.count * 2 { size *= 2 }
        var slots = [(name: String, entry: AppIndex)?](repeating: nil, count: size)
        for (name, entry) in index {
            var slot = Self.hash(name) & (size - 1)
            while slots[slot] != nil { slot = (slot + 1) & (size - 1) }
            slots[slot] = (name, entry)
        }
        self.slots = slots
        mask = size - 1
    }

    func find(_ name: String) -> AppIndex? {
        var slot = Self.hash(name) & mask
        while let found = slots[slot] {
            if found.name == name { return found.entry }
            slot = (slot + 1) & mask
        }
        return nil
    }

    static func hash(_ name: String) -> Int {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        var name = name
        // Over the contiguous bytes (a short name's are copied out of the string once) rather than through the
        // string's byte view, which costs several times as much per byte.
        name.withUTF8 { utf8 in
            for byte in utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        }
        return Int(truncatingIfNeeded: hash ^ (hash >> 32))
    }
}

/// A file of the cache folder that is never trusted unless it verifies: `{"checksum":…,"body":…}`, the checksum
/// being the sha256 of the body's exact bytes.
enum ChecksummedFile {
    private static let prefix = Array("{\"checksum\":\"".utf8)
    private static let separator = Array("\",\"body\":".utf8)

    /// The file's bytes for `body`.
    static func contents(body: [UInt8]) -> [UInt8] {
        var file = prefix
        file.reserveCapacity(body.count + 100)
        file += SHA256.hash(data: body).hexBytes
        file += separator
        file += body
        file.append(UInt8(ascii: "}"))
        return file
    }

    /// The body of a file's bytes (the exact bytes between the separator and the final brace), or `nil` when they are
    /// not such a file or the body does not match its checksum.
    static func body(of bytes: [UInt8]) -> [UInt8]? {
        let bodyStart = prefix.count + 64 + separator.count
        guard bytes.count > bodyStart, bytes.starts(with: prefix), bytes.last == UInt8(ascii: "}"),
              bytes[(prefix.count + 64)..<bodyStart].elementsEqual(separator) else { return nil }
        let body = Array(bytes[bodyStart..<bytes.count - 1])
        guard SHA256.hash(data: body).hexBytes.elementsEqual(bytes[prefix.count..<prefix.count + 64]) else { return nil }
        return body
    }
}

/// The edge's state on disk: a JSON body and its sha256 (a ``ChecksummedFile``), written atomically; a file whose
/// checksum does not match is discarded, never trusted.
///
/// Each campaign's JSON is kept from one save to the next while the campaign stays the same, so a save encodes
/// only the campaigns that changed since the last one and copies the rest.
final class StateFile: Sendable {
    let url: URL
    private let encoded = Mutex<[Int64: (campaign: Campaign, json: [UInt8])]>([:])

    struct Body: Codable {
        var epoch: String
        var seq: Int64
        var campaigns: [Campaign]
        var creatives: [CreativeFacts]
    }

    init(directory: URL) {
        url = directory.appendingPathComponent("state.json")
    }

    func save(_ state: EdgeState) throws {
        try AtomicFile.write(contents(of: state), to: url)
    }

    /// The file's bytes for `state`: `{"checksum":…,"body":…}`, the body being what ``Body`` decodes.
    func contents(of state: EdgeState) throws -> [UInt8] {
        let campaigns = try encoded.withLock { cache in
            var kept: [Int64: (campaign: Campaign, json: [UInt8])] = [:]
            kept.reserveCapacity(state.campaigns.count)
            for (id, campaign) in state.campaigns {
                if let entry = cache[id], entry.campaign == campaign {
                    kept[id] = entry
                } else {
                    kept[id] = (campaign, try JSONValueEncoder().encodeJSON(campaign))
                }
            }
            cache = kept
            return kept.sorted { $0.key < $1.key }.map(\.value.json)
        }
        var body = JSONWriter(reservingCapacity: campaigns.reduce(256) { $0 + $1.count + 1 } + state.creatives.count * 160)
        body.writeRaw("{\"epoch\":")
        body.write(string: state.epoch)
        body.writeRaw(",\"seq\":")
        body.write(int: Int(state.seq))
        body.writeRaw(",\"campaigns\":[")
        for (position, json) in campaigns.enumerated() {
            if position > 0 { body.append(UInt8(ascii: ",")) }
            body.writeRaw(json)
        }
        body.writeRaw("],\"creatives\":")
        try JSONValueEncoder().encode(state.creatives.values.sorted { $0.sha256 < $1.sha256 }, into: &body)
        body.append(UInt8(ascii: "}"))
        return ChecksummedFile.contents(body: body.bytes)
    }

    /// The saved state, or `nil` when there is none or it does not verify.
    func load() -> (state: EdgeState, discarded: Bool) {
        guard let data = FileManager.default.contents(atPath: url.path) else { return (.empty, false) }
        guard let body = ChecksummedFile.body(of: [UInt8](data)),
              let decoded = try? JSONValueDecoder(rejectUnknownKeys: false).decode(Body.self, fromJSON: body) else {
            return (.empty, true)
        }
        let state = EdgeState(epoch: decoded.epoch, seq: decoded.seq,
                              campaigns: Dictionary(uniqueKeysWithValues: decoded.campaigns.map { ($0.id, $0) }),
                              creatives: Dictionary(uniqueKeysWithValues: decoded.creatives.map { ($0.sha256, $0) }))
        return (state, false)
    }
}

/// Whether the edge's cache folder takes writes (the state file and creatives), for `/healthz`, metrics and
/// `edge.status`. A full or read-only disk does not stop the edge: it answers from memory and says so here.
public final class CacheHealth: Sendable {
    private let state = Mutex<(writable: Bool, lastError: String?, failures: Int)>((true, nil, 0))

    public var writable: Bool { state.withLock { $0.writable } }
    /// Why the last write failed, while it fails.
    public var lastError: String? { state.withLock { $0.writable ? nil : $0.lastError } }
    /// Writes that failed since start.
    public var failures: Int { state.withLock { $0.failures } }

    /// Records a write's outcome; returns `true` when it changed whether the cache is writable.
    @discardableResult
    func record(_ error: (any Error)?) -> Bool {
        state.withLock { state in
            let was = state.writable
            state.writable = error == nil
            if let error {
                state.failures += 1
                state.lastError = "\(error)"
            }
            return was != state.writable
        }
    }
}
