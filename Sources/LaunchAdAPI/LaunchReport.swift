import JSONRPC
import LaunchAdDomain

/// One event an app reports.
public struct LaunchEvent: Codable, Sendable, Hashable, JSONReadable {
    public enum Kind: String, Codable, Sendable, CaseIterable {
        case impression, click, skip
    }

    /// Unique per event (a retry sends the same id; it is counted once).
    public var eventId: String
    public var type: Kind
    public var campaignId: Int64
    public var deviceId: String
    /// The variant shown, for the rotation.
    public var sha256: String?
    /// When it happened (default: when received).
    public var at: Timestamp?

    public init(eventId: String, type: Kind, campaignId: Int64, deviceId: String, sha256: String? = nil, at: Timestamp? = nil) {
        self.eventId = eventId
        self.type = type
        self.campaignId = campaignId
        self.deviceId = deviceId
        self.sha256 = sha256
        self.at = at
    }

    /// The members in the order the `Codable` conformance reads them (so errors come in the same order).
    private static let fields: [StaticString] = ["eventId", "type", "campaignId", "deviceId", "sha256", "at"]

    /// Read straight from the tape: what the `Codable` conformance gives, the same value or an error naming the same
    /// field (the type and the time go through it when they are not plain).
    public init(json: JSONReader) throws {
        let object = try json.object(fields: Self.fields)
        let eventId = try object.string(slot: 0)
        let typeReader = try object.require(slot: 1)
        let type = try Kind(rawValue: typeReader.string()) ?? typeReader.decode(Kind.self)
        let campaignId = try object.require(slot: 2).integer(Int64.self)
        let deviceId = try object.string(slot: 3)
        let sha256 = try object.optionalString(slot: 4)
        let at = try object.optional(slot: 5).map { try $0.decode(Timestamp.self) }
        self.init(eventId: eventId, type: type, campaignId: campaignId, deviceId: deviceId, sha256: sha256, at: at)
    }

    /// An event of a compact call's params, or `nil` when it is not compact, names a member twice or one that is
    /// not an event's, or holds a null, a value of another type or a time that is not one. What it gives is what
    /// ``init(json:)`` gives for the same bytes.
    init?(compact reader: inout CompactReader) {
        guard reader.take(UInt8(ascii: "{")) else { return nil }
        var seen: UInt64 = 0
        var eventId: UnsafeRawBufferPointer?, type: Kind?, campaignId: Int?, deviceId: UnsafeRawBufferPointer?
        var sha256: UnsafeRawBufferPointer?, at: Timestamp?
        repeat {
            guard let slot = reader.member(&seen, slot: Self.compactSlot) else { return nil }
            if slot == 2 {
                guard let value = reader.int() else { return nil }
                campaignId = value
                continue
            }
            guard let text = reader.string() else { return nil }
            switch slot {
            case 0: eventId = text
            case 1:
                guard let kind = CompactReader.equals(text, "impression") ? Kind.impression : CompactReader.equals(text, "click") ? .click
                        : CompactReader.equals(text, "skip") ? .skip : nil else { return nil }
                type = kind
            case 3: deviceId = text
            case 4: sha256 = text
            default:
                guard let time = Timestamp(rfc3339: String(decoding: text, as: UTF8.self)) else { return nil }
                at = time
            }
        } while reader.take(UInt8(ascii: ","))
        guard reader.take(UInt8(ascii: "}")), let eventId, let type, let campaignId, let deviceId else { return nil }
        self.init(eventId: String(decoding: eventId, as: UTF8.self), type: type, campaignId: Int64(campaignId),
                  deviceId: String(decoding: deviceId, as: UTF8.self), sha256: sha256.map { String(decoding: $0, as: UTF8.self) }, at: at)
    }

    /// The slot in `fields` of a member's name, or -1.
    private static func compactSlot(_ key: UnsafeRawBufferPointer) -> Int {
        switch key.count {
        case 2: CompactReader.equals(key, "at") ? 5 : -1
        case 4: CompactReader.equals(key, "type") ? 1 : -1
        case 6: CompactReader.equals(key, "sha256") ? 4 : -1
        case 7: CompactReader.equals(key, "eventId") ? 0 : -1
        case 8: CompactReader.equals(key, "deviceId") ? 3 : -1
        case 10: CompactReader.equals(key, "campaignId") ? 2 : -1
        default: -1
        }
    }
}

public struct LaunchReportParams: Codable, Sendable, JSONReadable {
    public var events: [LaunchEvent]
    public init(events: [LaunchEvent]) { self.events = events }

    private static let fields: [StaticString] = ["events"]

    /// Read straight from the tape: what the `Codable` conformance gives (see ``LaunchEvent/init(json:)``).
    public init(json: JSONReader) throws {
        let object = try json.object(fields: Self.fields)
        events = try object.require(slot: 0).array().map { try LaunchEvent(json: $0) }
    }

    /// The params of a compact call (see `CompactReader`): `{"events":[…]}` with each event compact, or `nil` for
    /// anything else (a member named twice or unknown, a null, a value of another type, a time that is not one):
    /// the call is then read the general way, which answers its errors. What it gives is what ``init(json:)`` gives
    /// for the same bytes.
    public init?(compact reader: inout CompactReader) {
        guard reader.take(UInt8(ascii: "{")), let key = reader.key(), CompactReader.equals(key, "events"),
              reader.take(UInt8(ascii: "[")) else { return nil }
        var events: [LaunchEvent] = []
        if !reader.take(UInt8(ascii: "]")) {
            repeat {
                guard let event = LaunchEvent(compact: &reader) else { return nil }
                events.append(event)
            } while reader.take(UInt8(ascii: ","))
            guard reader.take(UInt8(ascii: "]")) else { return nil }
        }
        guard reader.take(UInt8(ascii: "}")) else { return nil }
        self.init(events: events)
    }
}

public struct LaunchReportResult: Codable, Sendable, JSONWritable {
    /// Events counted now.
    public var accepted: Int
    /// Events already counted before (same event id).
    public var duplicates: Int
    public init(accepted: Int, duplicates: Int) {
        self.accepted = accepted
        self.duplicates = duplicates
    }

    /// The bytes of its `Codable` encoding, written directly.
    public func write(json: inout JSONWriter) {
        json.writeObject { object in
            object.field("accepted", accepted)
            object.field("duplicates", duplicates)
        }
    }
}
