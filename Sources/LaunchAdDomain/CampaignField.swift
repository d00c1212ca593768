import JSONRPC

// The operator's fields of a campaign are listed once, as `CampaignFields.CodingKeys`. `CampaignField.describe` is
// an exhaustive `switch` over that list that says, for each field, where it lives in the patch and in the campaign;
// the merge on update, the campaign's reader and writer, `campaign.update`'s params and the schema's optional set
// all walk the list through it. A new key does not compile until it has its key paths, and then every one of those
// places handles it.

/// A value one of a campaign's fields holds, read and written straight as JSON with the bytes and errors of its
/// `Codable` conformance.
public protocol CampaignFieldValue: Codable, Hashable, Sendable {
    init(field json: JSONReader) throws
    func write(field json: inout JSONWriter)
}

/// Where one operator field lives: its key, its name as written, the patch's member and the campaign's (either
/// always set, or optional and left out of the JSON when unset).
public struct CampaignField<Value: CampaignFieldValue> {
    /// How the campaign holds the field.
    public enum Stored {
        /// Always set (a default on create when the patch leaves it out).
        case required(WritableKeyPath<Campaign, Value>)
        /// Unset until given; absent from the JSON when unset.
        case optional(WritableKeyPath<Campaign, Value?>)
    }

    public let key: CampaignFields.CodingKeys
    /// The key's name, as the JSON writer takes a member's name.
    public let name: StaticString
    public let patch: WritableKeyPath<CampaignFields, Value?>
    public let stored: Stored

    init(_ key: CampaignFields.CodingKeys, _ name: StaticString, _ patch: WritableKeyPath<CampaignFields, Value?>,
         required stored: WritableKeyPath<Campaign, Value>) {
        self.key = key
        self.name = name
        self.patch = patch
        self.stored = .required(stored)
    }

    init(_ key: CampaignFields.CodingKeys, _ name: StaticString, _ patch: WritableKeyPath<CampaignFields, Value?>,
         optional stored: WritableKeyPath<Campaign, Value?>) {
        self.key = key
        self.name = name
        self.patch = patch
        self.stored = .optional(stored)
    }

    /// Whether a campaign may leave the field out.
    public var isOptional: Bool {
        if case .optional = stored { true } else { false }
    }

    /// The campaign's value, `nil` when unset.
    public func value(in campaign: Campaign) -> Value? {
        switch stored {
        case .required(let path): campaign[keyPath: path]
        case .optional(let path): campaign[keyPath: path]
        }
    }

    /// Sets the campaign's value.
    public func set(_ value: Value, in campaign: inout Campaign) {
        switch stored {
        case .required(let path): campaign[keyPath: path] = value
        case .optional(let path): campaign[keyPath: path] = value
        }
    }
}

/// Something done to each field in turn, with the field's value type known: see ``CampaignFields/CodingKeys/accept(_:)``.
public protocol CampaignFieldVisitor {
    associatedtype Failure: Error = Never
    mutating func visit<Value: CampaignFieldValue>(_ field: CampaignField<Value>) throws(Failure)
}

extension CampaignFields.CodingKeys {
    /// Hands `visitor` this field's ``CampaignField``: the one place that ties each key to its members.
    public func accept<Visitor: CampaignFieldVisitor>(_ visitor: inout Visitor) throws(Visitor.Failure) {
        switch self {
        case .name: try visitor.visit(CampaignField(self, "name", \.name, required: \.name))
        case .app: try visitor.visit(CampaignField(self, "app", \.app, required: \.app))
        case .startsAt: try visitor.visit(CampaignField(self, "startsAt", \.startsAt, required: \.startsAt))
        case .endsAt: try visitor.visit(CampaignField(self, "endsAt", \.endsAt, required: \.endsAt))
        case .priority: try visitor.visit(CampaignField(self, "priority", \.priority, required: \.priority))
        case .weight: try visitor.visit(CampaignField(self, "weight", \.weight, required: \.weight))
        case .forced: try visitor.visit(CampaignField(self, "forced", \.forced, required: \.forced))
        case .countdown: try visitor.visit(CampaignField(self, "countdown", \.countdown, required: \.countdown))
        case .skippable: try visitor.visit(CampaignField(self, "skippable", \.skippable, required: \.skippable))
        case .skipAfter: try visitor.visit(CampaignField(self, "skipAfter", \.skipAfter, optional: \.skipAfter))
        case .launchTypes: try visitor.visit(CampaignField(self, "launchTypes", \.launchTypes, required: \.launchTypes))
        case .minBackgroundSeconds:
            try visitor.visit(CampaignField(self, "minBackgroundSeconds", \.minBackgroundSeconds, optional: \.minBackgroundSeconds))
        case .jump: try visitor.visit(CampaignField(self, "jump", \.jump, required: \.jump))
        case .creatives: try visitor.visit(CampaignField(self, "creatives", \.creatives, required: \.creatives))
        case .targeting: try visitor.visit(CampaignField(self, "targeting", \.targeting, required: \.targeting))
        case .frequencyCap: try visitor.visit(CampaignField(self, "frequencyCap", \.frequencyCap, optional: \.frequencyCap))
        case .audience: try visitor.visit(CampaignField(self, "audience", \.audience, optional: \.audience))
        case .testDevices: try visitor.visit(CampaignField(self, "testDevices", \.testDevices, optional: \.testDevices))
        case .display: try visitor.visit(CampaignField(self, "display", \.display, optional: \.display))
        case .clickArea: try visitor.visit(CampaignField(self, "clickArea", \.clickArea, optional: \.clickArea))
        case .videoSound: try visitor.visit(CampaignField(self, "videoSound", \.videoSound, optional: \.videoSound))
        case .advertiser: try visitor.visit(CampaignField(self, "advertiser", \.advertiser, optional: \.advertiser))
        case .paidBy: try visitor.visit(CampaignField(self, "paidBy", \.paidBy, optional: \.paidBy))
        case .goal: try visitor.visit(CampaignField(self, "goal", \.goal, optional: \.goal))
        case .pacing: try visitor.visit(CampaignField(self, "pacing", \.pacing, optional: \.pacing))
        }
    }

    /// Visits every field, in order.
    public static func acceptAll<Visitor: CampaignFieldVisitor>(_ visitor: inout Visitor) throws(Visitor.Failure) {
        for key in allCases { try key.accept(&visitor) }
    }

    /// The same member's key in ``Campaign/CodingKeys`` (one slot on: `id` comes first).
    public var campaignKey: Campaign.CodingKeys { Campaign.CodingKeys(rawValue: rawValue + 1)! }

    /// Whether a campaign may leave this field out (the schema's optional members).
    public var isOptionalInCampaign: Bool {
        struct Optionality: CampaignFieldVisitor {
            var optional = false
            mutating func visit<Value>(_ field: CampaignField<Value>) { optional = field.isOptional }
        }
        var visitor = Optionality()
        accept(&visitor)
        return visitor.optional
    }

    /// The name the ``CampaignField`` gives, which the writer writes (a test holds it equal to `stringValue`).
    public var writtenName: String {
        struct Name: CampaignFieldVisitor {
            var name = ""
            mutating func visit<Value>(_ field: CampaignField<Value>) { name = field.name.description }
        }
        var visitor = Name()
        accept(&visitor)
        return visitor.name
    }
}

extension Campaign {
    /// The campaign with every field the patch gives set, the others kept: the merge of an update and the
    /// defaults of a create overlaid by the operator's fields.
    public func merging(_ fields: CampaignFields) -> Campaign {
        struct Merge: CampaignFieldVisitor {
            let fields: CampaignFields
            var campaign: Campaign
            mutating func visit<Value>(_ field: CampaignField<Value>) {
                if let value = fields[keyPath: field.patch] { field.set(value, in: &campaign) }
            }
        }
        var merge = Merge(fields: fields, campaign: self)
        CampaignFields.CodingKeys.acceptAll(&merge)
        return merge.campaign
    }

    /// The campaign's operator fields as a patch: every set field given.
    public var patch: CampaignFields {
        struct Copy: CampaignFieldVisitor {
            let campaign: Campaign
            var fields = CampaignFields()
            mutating func visit<Value>(_ field: CampaignField<Value>) {
                fields[keyPath: field.patch] = field.value(in: campaign)
            }
        }
        var copy = Copy(campaign: self)
        CampaignFields.CodingKeys.acceptAll(&copy)
        return copy.fields
    }
}

// MARK: The values' JSON

extension CampaignFieldValue where Self: JSONReadable & JSONWritable {
    public init(field json: JSONReader) throws { try self.init(json: json) }
    public func write(field json: inout JSONWriter) { write(json: &json) }
}

extension CampaignFieldValue where Self: RawRepresentable, RawValue == String {
    public init(field json: JSONReader) throws { self = try json.enumeration(Self.self) }
    public func write(field json: inout JSONWriter) { json.write(string: rawValue) }
}

extension String: CampaignFieldValue {
    public init(field json: JSONReader) throws { self = try json.string() }
    public func write(field json: inout JSONWriter) { json.write(string: self) }
}

extension Int: CampaignFieldValue {
    public init(field json: JSONReader) throws { self = try json.int() }
    public func write(field json: inout JSONWriter) { json.write(int: self) }
}

extension Bool: CampaignFieldValue {
    public init(field json: JSONReader) throws { self = try json.bool() }
    public func write(field json: inout JSONWriter) { json.writeRaw(self ? "true" : "false") }
}

extension Timestamp: CampaignFieldValue {
    public init(field json: JSONReader) throws { self = try json.timestamp() }
    public func write(field json: inout JSONWriter) { json.write(timestamp: self) }
}

extension Array: CampaignFieldValue where Element: CampaignFieldValue {
    public init(field json: JSONReader) throws { self = try json.array().map { try Element(field: $0) } }
    public func write(field json: inout JSONWriter) { json.writeArray(self) { $1.write(field: &$0) } }
}

extension LaunchType: CampaignFieldValue {}
extension Audience: CampaignFieldValue {}
extension CampaignDisplay: CampaignFieldValue {}
extension CampaignClickArea: CampaignFieldValue {}
extension Jump: CampaignFieldValue {}
extension CreativeRef: CampaignFieldValue {}
extension Targeting: CampaignFieldValue {}
extension FrequencyCap: CampaignFieldValue {}
extension CampaignGoal: CampaignFieldValue {}
extension GoalPeriod: CampaignFieldValue {}
extension CampaignPacing: CampaignFieldValue {}
