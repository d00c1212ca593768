import JSONRPC

// A campaign read straight from the tape: every change an edge or a relay applies carries one, and `Codable`'s
// generic machinery was most of what reading it cost. Each reader gives what the type's `Codable` conformance gives
// for the same JSON, the same value or an error naming the same field, reading the members in the same order.

extension JSONReader {
    /// A time, as `Timestamp`'s `Codable` conformance reads it (the same error when the text is not one).
    public func timestamp() throws -> Timestamp {
        if let time = Timestamp(rfc3339: try string()) { return time }
        return try decode(Timestamp.self)
    }
}

extension Jump: JSONReadable {
    static let fields = JSONFields(CodingKeys.self)

    public init(json: JSONReader) throws {
        let object = try json.object(Self.fields)
        let type = try object.require(.type).enumeration(Kind.self)
        self.init(type: type, value: try object.string(.value))
    }
}

extension CreativeRef: JSONReadable {
    static let fields = JSONFields(CodingKeys.self)

    public init(json: JSONReader) throws {
        let object = try json.object(Self.fields)
        let sha256 = try object.string(.sha256)
        self.init(sha256: sha256, weight: try object.optionalInt(.weight) ?? 100)
    }
}

extension VersionRange: JSONReadable {
    static let fields = JSONFields(CodingKeys.self)

    public init(json: JSONReader) throws {
        let object = try json.object(Self.fields)
        let min = try object.optionalString(.min)
        self.init(min: min, max: try object.optionalString(.max))
    }
}

extension Targeting: JSONReadable {
    static let fields = JSONFields(CodingKeys.self)

    public init(json: JSONReader) throws {
        let object = try json.object(Self.fields)
        let platforms = try object.optional(.platforms)?.strings()
        let appVersions = try object.optional(.appVersions).map { try VersionRange(json: $0) }
        let regions = try object.optional(.regions)?.strings()
        self.init(platforms: platforms, appVersions: appVersions, regions: regions, locales: try object.optional(.locales)?.strings())
    }
}

extension FrequencyCap: JSONReadable {
    static let fields = JSONFields(CodingKeys.self)

    public init(json: JSONReader) throws {
        let object = try json.object(Self.fields)
        let shows = try object.int(.shows)
        self.init(shows: shows, hours: try object.int(.hours))
    }
}

extension CampaignGoal: JSONReadable {
    static let fields = JSONFields(CodingKeys.self)

    public init(json: JSONReader) throws {
        let object = try json.object(Self.fields)
        let impressions = try object.int(.impressions)
        self.init(impressions: impressions, per: try object.require(.per).enumeration(GoalPeriod.self))
    }
}

extension Campaign: JSONReadable {
    static let fields: JSONFields<CodingKeys> = {
        // The reader finds each operator field one slot on from its key in `CampaignFields.CodingKeys`.
        for key in CampaignFields.CodingKeys.allCases {
            precondition(key.campaignKey.stringValue == key.stringValue,
                         "Campaign.CodingKeys.\(key.campaignKey.stringValue) stands where CampaignFields has \(key.stringValue)")
        }
        return JSONFields(CodingKeys.self)
    }()

    /// A campaign whose every member the reader then sets.
    private static let blank = Campaign(
        id: 0, name: "", app: "", startsAt: Timestamp(milliseconds: 0), endsAt: Timestamp(milliseconds: 0),
        priority: 0, weight: 0, forced: false, countdown: 0, skippable: false, skipAfter: nil, launchTypes: [], minBackgroundSeconds: nil,
        jump: .none, creatives: [], targeting: .everyone, frequencyCap: nil, state: .deleted, version: 0,
        createdAt: Timestamp(milliseconds: 0), updatedAt: Timestamp(milliseconds: 0))

    /// Reads each operator field in order: a required one must be there, an optional one may be absent or `null`.
    private struct FieldReader: CampaignFieldVisitor {
        let object: JSONObjectReader<Campaign.CodingKeys>
        var campaign: Campaign

        mutating func visit<Value>(_ field: CampaignField<Value>) throws(any Error) {
            let key = field.key.campaignKey
            switch field.stored {
            case .required(let path): campaign[keyPath: path] = try Value(field: object.require(key))
            case .optional(let path): campaign[keyPath: path] = try object.optional(key).map { try Value(field: $0) }
            }
        }
    }

    public init(json: JSONReader) throws {
        let object = try json.object(Self.fields)
        var reader = FieldReader(object: object, campaign: Self.blank)
        reader.campaign.id = try object.require(.id).integer(Int64.self)
        try CampaignFields.CodingKeys.acceptAll(&reader)
        self = reader.campaign
        state = try object.require(.state).enumeration(CampaignState.self)
        version = try object.int(.version)
        createdAt = try object.require(.createdAt).timestamp()
        updatedAt = try object.require(.updatedAt).timestamp()
        share = try object.optional(.share)?.double()
    }
}
