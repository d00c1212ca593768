import JSONRPC
import LaunchAdDomain

/// One event an app reports: what was shown and done (`impression`, `click`, `skip`, of a campaign), the user's report
/// of the ad shown (`reported`, with a ``ReportReason``), or how a launch went for the funnel (`request`, `noAd`,
/// `timeout`, `failed`, of an app, with or without a campaign).
public struct LaunchEvent: Codable, Sendable, Hashable, JSONReadable, MemberReadable {
    public enum Kind: String, Codable, Sendable, CaseIterable {
        case impression, click, skip
        /// The app asked for an ad.
        case request
        /// There was nothing to show.
        case noAd
        /// The budget passed and nothing was shown.
        case timeout
        /// The media could not be shown.
        case failed
        /// The user reported the ad shown (``LaunchEvent/reason`` says why).
        case reported

        /// Whether it is a launch's report for the funnel, counted by app (``LaunchEvent/app`` required,
        /// ``LaunchEvent/campaignId`` optional), rather than a campaign's event.
        public var isFunnel: Bool {
            switch self {
            case .impression, .click, .skip, .reported: false
            case .request, .noAd, .timeout, .failed: true
            }
        }
    }

    /// Unique per event (a retry sends the same id; it is counted once).
    public var eventId: String
    public var type: Kind
    /// The campaign: required for an impression, click or skip; optional for the funnel's reports.
    public var campaignId: Int64?
    public var deviceId: String
    /// The variant shown, for the rotation.
    public var sha256: String?
    /// When it happened (default: when received).
    public var at: Timestamp?
    /// The app's id (as `launch.query`'s `app`): required for the funnel's reports; on a campaign's event, it must
    /// be the campaign's app.
    public var app: String?
    /// Why the user reported the ad: required for `reported`, refused on the other kinds.
    public var reason: ReportReason?

    public init(eventId: String, type: Kind, campaignId: Int64?, deviceId: String, sha256: String? = nil, at: Timestamp? = nil,
                app: String? = nil, reason: ReportReason? = nil) {
        self.eventId = eventId
        self.type = type
        self.campaignId = campaignId
        self.deviceId = deviceId
        self.sha256 = sha256
        self.at = at
        self.app = app
        self.reason = reason
    }

    /// The members, declared once, in the order the `Codable` conformance reads them (so every source's errors come
    /// in the same order): the `Codable` conformance's keys, the cases of the one reader (``read(_:)``) and the
    /// names its sources find (``fields``), the schema's properties (``schema(of:)``).
    public enum CodingKeys: Int, JSONFieldKey {
        case eventId, type, campaignId, deviceId, sha256, at, app, reason
    }
    public static let fields = JSONFields(CodingKeys.self)

    /// The bounds of an event's members, written once: ``check(at:now:)`` enforces them, the schema states them.
    enum Rules {
        static var eventIdLength: ClosedRange<Int> { 1...64 }
        static var deviceIdLength: ClosedRange<Int> { LaunchQueryParams.Rules.deviceIdLength }
        /// How far back an event's time may be, in days.
        static var maxAgeDays: Int { 7 }
        /// How far ahead of the edge's clock an event's time may be (clocks differ), in seconds.
        static var maxAheadSeconds: Double { 300 }
        static var campaignRequired: String { "is required for impression, click, skip and reported" }
        static var reasonRequired: String { "is required for reported (\(ReportReason.allCases.map(\.rawValue).joined(separator: ", ")))" }
        static var reasonRefused: String { "is only for reported" }
        static var appRequired: String { "is required for request, noAd, timeout and failed" }
    }

    /// Checks the members against ``Rules`` (whether the edge knows the campaign, and the campaign's app, are the
    /// edge's to check against its state); an error names the member as `events[index].name`.
    public func check(at index: Int, now: Timestamp) throws(JSONRPCError) {
        func bad(_ field: CodingKeys, _ rule: String) -> JSONRPCError {
            Self.invalid(field, at: index, rule)
        }
        guard Rules.eventIdLength.contains(eventId.utf8.count) else {
            throw bad(.eventId, "must be \(Rules.eventIdLength.lowerBound) to \(Rules.eventIdLength.upperBound) bytes")
        }
        if type.isFunnel {
            guard app != nil else { throw bad(.app, Rules.appRequired) }
        } else {
            guard campaignId != nil else { throw bad(.campaignId, Rules.campaignRequired) }
        }
        if let campaignId, campaignId < 1 { throw bad(.campaignId, "must be positive") }
        if type == .reported {
            guard reason != nil else { throw bad(.reason, Rules.reasonRequired) }
        } else if reason != nil {
            throw bad(.reason, Rules.reasonRefused)
        }
        guard Rules.deviceIdLength.contains(deviceId.utf8.count) else {
            throw bad(.deviceId, "must be \(Rules.deviceIdLength.lowerBound) to \(Rules.deviceIdLength.upperBound) bytes")
        }
        if let sha256, !CampaignRules.isSHA256(sha256) { throw bad(.sha256, LaunchQueryParams.Rules.sha256) }
        if let at, at > now.adding(seconds: Rules.maxAheadSeconds) || at < now.adding(seconds: -Double(Rules.maxAgeDays) * 86_400) {
            throw bad(.at, "must be within the last \(Rules.maxAgeDays) days")
        }
        if let app, !AppID.isValid(app) { throw bad(.app, "must be \(AppID.rule)") }
    }

    /// The invalid-params error of the member `field` of the event at `index`, named `events[index].field`.
    public static func invalid(_ field: CodingKeys, at index: Int, _ rule: String) -> JSONRPCError {
        .invalidParams(field: "\(LaunchReportParams.CodingKeys.events.stringValue)[\(index)].\(field.stringValue)", rule)
    }

    /// Read straight from the tape: what the `Codable` conformance gives, the same value or an error naming the same
    /// field (the type and the time go through it when they are not plain).
    public init(json: JSONReader) throws {
        self = try Self.read(json: json)
    }

    /// The event's one reader, whatever the source: every member read by its key (a new key does not compile until
    /// it is read here), the required ones then demanded.
    public static func read<Source: MemberSource>(_ source: inout Source) throws(Source.Failure) -> Self
        where Source.Key == CodingKeys {
        var eventId: String?, type: Kind?, deviceId: String?
        var event = Self(eventId: "", type: .impression, campaignId: nil, deviceId: "")
        while let key = try source.next() {
            switch key {
            case .eventId: eventId = try source.string()
            case .type: type = try source.requiredCase(Kind.self, rule: "must be one of \(Kind.allCases.map(\.rawValue).joined(separator: ", "))")
            case .campaignId: event.campaignId = try source.optionalInteger(Int64.self, textRule: "must be a whole number")
            case .deviceId: deviceId = try source.string()
            case .sha256: event.sha256 = try source.optionalString()
            case .at: event.at = try source.optionalValue(Timestamp.self, text: Timestamp.init(rfc3339:), textRule: "must be an RFC 3339 time")
            case .app: event.app = try source.optionalString()
            case .reason: event.reason = try source.optionalCase(ReportReason.self, rule: ReportReason.rule)
            }
        }
        guard let eventId else { throw source.missing(.eventId) }
        guard let type else { throw source.missing(.type) }
        guard let deviceId else { throw source.missing(.deviceId) }
        (event.eventId, event.type, event.deviceId) = (eventId, type, deviceId)
        return event
    }
}

/// Why a user reported an ad (`launch.report` kind `reported`).
public enum ReportReason: String, Codable, Sendable, CaseIterable, Hashable {
    case inappropriate, misleading, repetitive, other

    /// The rule an unknown reason is refused with.
    public static var rule: String { "must be one of \(allCases.map(\.rawValue).joined(separator: ", "))" }
}

public struct LaunchReportParams: Codable, Sendable, JSONReadable, MemberReadable {
    public var events: [LaunchEvent]
    public init(events: [LaunchEvent]) { self.events = events }

    /// The members, declared once: the `Codable` conformance's keys, the reader's cases, the schema's properties.
    public enum CodingKeys: Int, JSONFieldKey {
        case events
    }
    public static let fields = JSONFields(CodingKeys.self)

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
        self = try Self.read(json: json)
    }

    /// The params of a compact call (see `CompactReader`): `{"events":[…]}` with each event compact, or `nil` for
    /// anything else (a member named twice or unknown, a null, a value of another type, a time that is not one):
    /// the call is then read the general way, which answers its errors. What it gives is what ``init(json:)`` gives
    /// for the same bytes: the same reader.
    public init?(compact reader: inout CompactReader) {
        guard let params = Self.read(compact: &reader) else { return nil }
        self = params
    }

    /// The params' one reader, whatever the source.
    public static func read<Source: MemberSource>(_ source: inout Source) throws(Source.Failure) -> Self
        where Source.Key == CodingKeys {
        var events: [LaunchEvent]?
        while let key = try source.next() {
            switch key {
            case .events: events = try source.objects(LaunchEvent.self)
            }
        }
        guard let events else { throw source.missing(.events) }
        return Self(events: events)
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
