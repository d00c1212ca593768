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

    /// The members, declared once, in the order the `Codable` conformance reads them (so every reader's errors come
    /// in the same order): the `Codable` conformance's keys, the tape and compact readers' slots (``fields``), the
    /// schema's properties (``schema(of:)``).
    public enum CodingKeys: Int, JSONFieldKey {
        case eventId, type, campaignId, deviceId, sha256, at
    }
    static let fields = JSONFields(CodingKeys.self)

    /// The bounds of an event's members, written once: ``check(at:now:)`` enforces them, the schema states them.
    enum Rules {
        static var eventIdLength: ClosedRange<Int> { 1...64 }
        static var deviceIdLength: ClosedRange<Int> { LaunchQueryParams.Rules.deviceIdLength }
        /// How far back an event's time may be, in days.
        static var maxAgeDays: Int { 7 }
        /// How far ahead of the edge's clock an event's time may be (clocks differ), in seconds.
        static var maxAheadSeconds: Double { 300 }
    }

    /// Checks the members against ``Rules`` (the campaign's id is the edge's to check, against its state, first);
    /// an error names the member as `events[index].name`.
    public func check(at index: Int, now: Timestamp) throws(JSONRPCError) {
        func bad(_ field: CodingKeys, _ rule: String) -> JSONRPCError {
            .invalidParams(field: "\(LaunchReportParams.CodingKeys.events.stringValue)[\(index)].\(field.stringValue)", rule)
        }
        guard Rules.eventIdLength.contains(eventId.utf8.count) else {
            throw bad(.eventId, "must be \(Rules.eventIdLength.lowerBound) to \(Rules.eventIdLength.upperBound) bytes")
        }
        guard Rules.deviceIdLength.contains(deviceId.utf8.count) else {
            throw bad(.deviceId, "must be \(Rules.deviceIdLength.lowerBound) to \(Rules.deviceIdLength.upperBound) bytes")
        }
        if let sha256, !CampaignRules.isSHA256(sha256) { throw bad(.sha256, LaunchQueryParams.Rules.sha256) }
        if let at, at > now.adding(seconds: Rules.maxAheadSeconds) || at < now.adding(seconds: -Double(Rules.maxAgeDays) * 86_400) {
            throw bad(.at, "must be within the last \(Rules.maxAgeDays) days")
        }
    }

    /// Read straight from the tape: what the `Codable` conformance gives, the same value or an error naming the same
    /// field (the type and the time go through it when they are not plain).
    public init(json: JSONReader) throws {
        let object = try json.object(Self.fields)
        let eventId = try object.string(.eventId)
        let typeReader = try object.require(.type)
        let type = try Kind(rawValue: typeReader.string()) ?? typeReader.decode(Kind.self)
        let campaignId = try object.require(.campaignId).integer(Int64.self)
        let deviceId = try object.string(.deviceId)
        let sha256 = try object.optionalString(.sha256)
        let at = try object.optional(.at).map { try $0.decode(Timestamp.self) }
        self.init(eventId: eventId, type: type, campaignId: campaignId, deviceId: deviceId, sha256: sha256, at: at)
    }

    /// An event of a compact call's params, or `nil` when it is not compact, names a member twice or one that is
    /// not an event's, or holds a null, a value of another type or a time that is not one. What it gives is what
    /// ``init(json:)`` gives for the same bytes.
    init?(compact reader: inout CompactReader) {
        guard reader.take(UInt8(ascii: "{")) else { return nil }
        let fields = Self.fields
        var seen: UInt64 = 0
        var eventId: UnsafeRawBufferPointer?, type: Kind?, campaignId: Int?, deviceId: UnsafeRawBufferPointer?
        var sha256: UnsafeRawBufferPointer?, at: Timestamp?
        repeat {
            guard let key = reader.member(&seen, in: fields) else { return nil }
            if key == .campaignId {
                guard let value = reader.int() else { return nil }
                campaignId = value
                continue
            }
            // Every other member is a string.
            guard let text = reader.string() else { return nil }
            switch key {
            case .eventId: eventId = text
            case .type:
                guard let kind = CompactReader.equals(text, "impression") ? Kind.impression : CompactReader.equals(text, "click") ? .click
                        : CompactReader.equals(text, "skip") ? .skip : nil else { return nil }
                type = kind
            case .deviceId: deviceId = text
            case .sha256: sha256 = text
            case .at:
                guard let time = Timestamp(rfc3339: String(decoding: text, as: UTF8.self)) else { return nil }
                at = time
            case .campaignId: preconditionFailure("read above")
            }
        } while reader.take(UInt8(ascii: ","))
        guard reader.take(UInt8(ascii: "}")), let eventId, let type, let campaignId, let deviceId else { return nil }
        self.init(eventId: String(decoding: eventId, as: UTF8.self), type: type, campaignId: Int64(campaignId),
                  deviceId: String(decoding: deviceId, as: UTF8.self), sha256: sha256.map { String(decoding: $0, as: UTF8.self) }, at: at)
    }
}

public struct LaunchReportParams: Codable, Sendable, JSONReadable {
    public var events: [LaunchEvent]
    public init(events: [LaunchEvent]) { self.events = events }

    /// The members, declared once: the `Codable` conformance's keys, the readers' slots, the schema's properties.
    public enum CodingKeys: Int, JSONFieldKey {
        case events
    }
    static let fields = JSONFields(CodingKeys.self)

    /// How many events a report may list.
    static var eventCount: ClosedRange<Int> { 1...100 }

    /// Checks the number of events against ``eventCount`` (each event is checked by ``LaunchEvent/check(at:now:)``).
    public func checkCount() throws(JSONRPCError) {
        guard Self.eventCount.contains(events.count) else {
            throw .invalidParams(field: CodingKeys.events.stringValue,
                                 "must list \(Self.eventCount.lowerBound) to \(Self.eventCount.upperBound) events")
        }
    }

    /// Read straight from the tape: what the `Codable` conformance gives (see ``LaunchEvent/init(json:)``).
    public init(json: JSONReader) throws {
        let object = try json.object(Self.fields)
        events = try object.require(.events).array().map { try LaunchEvent(json: $0) }
    }

    /// The params of a compact call (see `CompactReader`): `{"events":[…]}` with each event compact, or `nil` for
    /// anything else (a member named twice or unknown, a null, a value of another type, a time that is not one):
    /// the call is then read the general way, which answers its errors. What it gives is what ``init(json:)`` gives
    /// for the same bytes.
    public init?(compact reader: inout CompactReader) {
        var seen: UInt64 = 0
        guard reader.take(UInt8(ascii: "{")), reader.member(&seen, in: Self.fields) == .events, reader.take(UInt8(ascii: "[")) else { return nil }
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
