import Foundation
import JSONRPC
import LaunchAdDomain

public struct ChangesParams: Codable, Sendable {
    public var epoch: String
    public var since: Int64
    public var limit: Int?
    public init(epoch: String, since: Int64, limit: Int? = nil) {
        self.epoch = epoch
        self.since = since
        self.limit = limit
    }
}

/// `sync.snapshot` params. Without either member the answer is the whole snapshot at once (what edges that do not
/// page ask for); with either, it is one page.
public struct SnapshotParams: Codable, Sendable, Hashable {
    /// The page starts after this campaign id (0, or absent, for the first page).
    public var after: Int64?
    /// The most campaigns on the page.
    public var limit: Int?

    public init(after: Int64? = nil, limit: Int? = nil) {
        self.after = after
        self.limit = limit
    }

    public var isPaged: Bool { after != nil || limit != nil }
}

public struct ChangesResult: Codable, Sendable {
    public var epoch: String
    /// The service's sequence number now (the changes may stop short of it when limited).
    public var seq: Int64
    public var changes: [Change]

    public init(epoch: String, seq: Int64, changes: [Change]) {
        self.epoch = epoch
        self.seq = seq
        self.changes = changes
    }
}

public struct CreativeChunkParams: Codable, Sendable {
    public var sha256: String
    public var offset: Int?
    public var length: Int?
    public init(sha256: String, offset: Int? = nil, length: Int? = nil) {
        self.sha256 = sha256
        self.offset = offset
        self.length = length
    }
}

extension SnapshotParams {
    /// The page asked for, checked (`after` not negative, `limit` 1 to ``SyncAPI/maxSnapshotPage``), with the defaults
    /// filled in: what campaignd and relays answer a paged `sync.snapshot` from.
    public func checked() throws -> (after: Int64, limit: Int) {
        let after = after ?? 0
        let limit = limit ?? SyncAPI.defaultSnapshotPage
        guard after >= 0 else { throw JSONRPCError.invalidParams(field: "after", "must not be negative") }
        guard (1...SyncAPI.maxSnapshotPage).contains(limit) else {
            throw JSONRPCError.invalidParams(field: "limit", "must be between 1 and \(SyncAPI.maxSnapshotPage)")
        }
        return (after, limit)
    }
}

extension CreativeChunkParams {
    /// The chunk asked for, checked (the sha256's form, the offset not negative, the length 1 to 1 MiB), with the
    /// defaults filled in: what every `creative.get` (campaignd's, a relay's, an edge's) answers from.
    public func checked() throws -> (offset: Int, length: Int) {
        guard CampaignRules.isSHA256(sha256) else { throw JSONRPCError.invalidParams(field: "sha256", "must be 64 lowercase hex characters") }
        let offset = offset ?? 0
        let length = length ?? SyncAPI.maxChunk
        guard offset >= 0 else { throw JSONRPCError.invalidParams(field: "offset", "must not be negative") }
        guard (1...SyncAPI.maxChunk).contains(length) else { throw JSONRPCError.invalidParams(field: "length", "must be between 1 and \(SyncAPI.maxChunk)") }
        return (offset, length)
    }
}

/// A piece of a creative's bytes (base64), at most 1 MiB, with the creative's facts.
public struct CreativeChunk: Codable, Sendable {
    public var sha256: String
    public var contentType: String
    public var width: Int
    public var height: Int
    public var size: Int
    /// How long the creative plays, in milliseconds (0 for a still image); `nil` from an older campaignd or relay.
    public var durationMs: Int?
    public var offset: Int
    public var data: String

    public init(sha256: String, contentType: String, width: Int, height: Int, size: Int, durationMs: Int? = nil, offset: Int, data: String) {
        self.sha256 = sha256
        self.contentType = contentType
        self.width = width
        self.height = height
        self.size = size
        self.durationMs = durationMs
        self.offset = offset
        self.data = data
    }

    /// The chunk of `bytes` at `offset` of the creative `facts` describes: what every `creative.get` answers.
    public init(_ facts: CreativeFacts, offset: Int, bytes: [UInt8]) {
        self.init(sha256: facts.sha256, contentType: facts.contentType, width: facts.width, height: facts.height, size: facts.size,
                  durationMs: facts.durationMs, offset: offset, data: Data(bytes).base64EncodedString())
    }
}

public struct EdgeAck: Codable, Sendable, Hashable, JSONReadable {
    public var edgeId: String
    public var region: String
    public var epoch: String
    public var appliedSeq: Int64
    /// The relays the acknowledgement came through, the one nearest campaignd first; absent (or empty) from an edge
    /// or relay that speaks to campaignd itself. Each relay puts its own id in front when it passes one on.
    public var via: [String]?
    /// With CURVE: when the edge sent it, in milliseconds since 1970 by the edge's clock (sealed, so that campaignd
    /// takes each acknowledgement once and only while it is fresh: proto-docs, "Whose word an acknowledgement is").
    public var sentAt: Int64?
    /// With CURVE: the edge's seal of its fields (HMAC-SHA256, 64 lowercase hex characters), which relays pass on
    /// untouched and cannot make.
    public var mac: String?

    /// The members, declared once: the `Codable` conformance's keys and the reader's slots.
    public enum CodingKeys: Int, JSONFieldKey { case edgeId, region, epoch, appliedSeq, via, sentAt, mac }
    static let fields = JSONFields(CodingKeys.self)

    /// What the `Codable` conformance gives for the same JSON, without its generic machinery: every edge sends one
    /// after each save and heartbeat, and relays and campaignd read them all.
    public init(json: JSONReader) throws {
        let object = try json.object(Self.fields)
        edgeId = try object.string(.edgeId)
        region = try object.string(.region)
        epoch = try object.string(.epoch)
        appliedSeq = try object.require(.appliedSeq).integer(Int64.self)
        via = try object.optional(.via)?.strings()
        sentAt = try object.optional(.sentAt)?.integer(Int64.self)
        mac = try object.optionalString(.mac)
    }
    public init(edgeId: String, region: String, epoch: String, appliedSeq: Int64, via: [String]? = nil, sentAt: Int64? = nil,
                mac: String? = nil) {
        self.edgeId = edgeId
        self.region = region
        self.epoch = epoch
        self.appliedSeq = appliedSeq
        self.via = via
        self.sentAt = sentAt
        self.mac = mac
    }

    /// The id of the peer that sent it: the nearest relay when it came through relays, else the edge itself.
    public var sender: String { via?.first ?? edgeId }

    /// Whether this one was sent after `other` by the edge's clock (`false` when either has no `sentAt`).
    public func isNewer(than other: EdgeAck) -> Bool {
        guard let sentAt, let otherSentAt = other.sentAt else { return false }
        return sentAt > otherSentAt
    }

    /// This acknowledgement as `relayId` passes it upstream: with its id in front of the path.
    public func passed(by relayId: String) -> EdgeAck {
        var passed = self
        passed.via = [relayId] + (via ?? [])
        return passed
    }
}

/// Written without `Codable`: an edge sends one after each save and each heartbeat.
extension EdgeAck: JSONWritable {
    public func write(json: inout JSONWriter) {
        json.writeObject { object in
            object.field("edgeId", edgeId)
            object.field("region", region)
            object.field("epoch", epoch)
            object.field("appliedSeq", Int(appliedSeq))
            if let via { object.field("via") { $0.writeArray(via) { $0.write(string: $1) } } }
            if let sentAt { object.field("sentAt", Int(sentAt)) }
            object.field("mac", ifPresent: mac)
        }
    }
}

/// `edge.acks`: the acknowledgements of the edges (and relays) behind a relay, passed upstream together.
public struct EdgeAcks: Codable, Sendable, JSONReadable {
    public var acks: [EdgeAck]
    public init(acks: [EdgeAck]) {
        self.acks = acks
    }

    public enum CodingKeys: Int, JSONFieldKey { case acks }
    static let fields = JSONFields(CodingKeys.self)

    /// What the `Codable` conformance gives for the same JSON: each acknowledgement read by its own reader.
    public init(json: JSONReader) throws {
        acks = try json.object(Self.fields).require(.acks).array().map { try EdgeAck(json: $0) }
    }

    /// The most acknowledgements one call may carry.
    public static let maxAcks = 10_000
}

/// Written without `Codable`: a relay passes its edges' acknowledgements upstream in one every few milliseconds.
extension EdgeAcks: JSONWritable {
    public func write(json: inout JSONWriter) {
        json.writeObject { object in
            object.field("acks") { $0.writeArray(acks) { $1.write(json: &$0) } }
        }
    }
}

public struct EdgeAcksResult: Codable, Sendable {
    /// How many were taken.
    public var taken: Int
    /// The edge ids whose acknowledgements were left out: for their numbers (``PeerNumbers``: a seq beyond the
    /// receiver's, a bad epoch) or, with CURVE, for their seal (missing, not the edge's, or not newer than the last
    /// taken); absent when none were. The others of the batch are taken all the same.
    public var refused: [String]?
    public init(taken: Int, refused: [String]? = nil) {
        self.taken = taken
        self.refused = refused
    }
}

public struct EdgeAckResult: Codable, Sendable {
    public var seq: Int64

    public init(seq: Int64) {
        self.seq = seq
    }
}
