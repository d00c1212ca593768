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

extension Campaign: JSONReadable {
    static let fields = JSONFields(CodingKeys.self)

    public init(json: JSONReader) throws {
        let object = try json.object(Self.fields)
        let id = try object.require(.id).integer(Int64.self)
        let name = try object.string(.name)
        let app = try object.string(.app)
        let startsAt = try object.require(.startsAt).timestamp()
        let endsAt = try object.require(.endsAt).timestamp()
        let priority = try object.int(.priority)
        let weight = try object.int(.weight)
        let forced = try object.require(.forced).bool()
        let countdown = try object.int(.countdown)
        let skippable = try object.require(.skippable).bool()
        let skipAfter = try object.optionalInt(.skipAfter)
        let launchTypes = try object.require(.launchTypes).array().map { try $0.enumeration(LaunchType.self) }
        let minBackgroundSeconds = try object.optionalInt(.minBackgroundSeconds)
        let jump = try Jump(json: object.require(.jump))
        let creatives = try object.require(.creatives).array().map { try CreativeRef(json: $0) }
        let targeting = try Targeting(json: object.require(.targeting))
        let frequencyCap = try object.optional(.frequencyCap).map { try FrequencyCap(json: $0) }
        let audience = try object.optional(.audience)?.enumeration(Audience.self)
        let testDevices = try object.optional(.testDevices)?.strings()
        let display = try object.optional(.display)?.enumeration(CampaignDisplay.self)
        let clickArea = try object.optional(.clickArea)?.enumeration(CampaignClickArea.self)
        let videoSound = try object.optional(.videoSound)?.bool()
        let state = try object.require(.state).enumeration(CampaignState.self)
        let version = try object.int(.version)
        let createdAt = try object.require(.createdAt).timestamp()
        self.init(id: id, name: name, app: app, startsAt: startsAt, endsAt: endsAt, priority: priority, weight: weight,
                  forced: forced, countdown: countdown, skippable: skippable, skipAfter: skipAfter, launchTypes: launchTypes,
                  minBackgroundSeconds: minBackgroundSeconds, jump: jump, creatives: creatives, targeting: targeting,
                  frequencyCap: frequencyCap, state: state, version: version, createdAt: createdAt,
                  updatedAt: try object.require(.updatedAt).timestamp(), audience: audience, testDevices: testDevices,
                  display: display, clickArea: clickArea, videoSound: videoSound)
    }
}
