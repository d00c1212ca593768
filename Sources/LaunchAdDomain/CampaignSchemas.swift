import JSONRPC

// The JSON Schemas of the campaign types, for the OpenRPC documents. Each bound here is one that `CampaignRules`
// enforces; keep them together when a rule changes (the golden examples are validated against these schemas and
// decoded by the types, so a schema that drifts from the codec fails the tests).

extension Timestamp: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .dateTime("RFC 3339; written in UTC with milliseconds when there are any, such as 2026-12-12T00:00:00Z.")
    }
}

extension CampaignState: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .cases(of: Self.self, "scheduled (not started), live (serving), paused (held by an operator), expired (over or taken down; never served again), deleted (a tombstone: clients drop it).")
    }
}

extension LaunchType: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema { .cases(of: Self.self, "A cold start, or a hot start (back from the background).") }
}

extension CampaignOperation: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema { .cases(of: Self.self, "What a change did to the campaign.") }
}

extension Jump: JSONSchemaDescribable {
    public static var schemaName: String? { "Jump" }
    public static var jsonSchema: JSONSchema {
        .object([
            "type": .cases(of: Kind.self, "none: a tap does nothing; url: opens an http(s) URL; deeplink: opens an app link with a scheme (not javascript, data, file, vbscript, http or https)."),
            "value": .string("Empty for none; the URL or the deep link otherwise. No spaces or control characters.", maxLength: 2048),
        ], required: ["type", "value"], description: "What a tap on the ad does.")
    }
}

extension CreativeRef: JSONSchemaDescribable {
    public static var schemaName: String? { "CreativeRef" }
    public static var jsonSchema: JSONSchema {
        .object([
            "sha256": .sha256("An uploaded creative (creative.upload's sha256)."),
            "weight": .integer("Its share of the rotation among the campaign's variants (default 100).", minimum: 1, maximum: 1000),
        ], required: ["sha256"], description: "One variant of the ad.")
    }
}

extension VersionRange: JSONSchemaDescribable {
    static let versionPattern = "^[0-9]{1,9}(\\.[0-9]{1,9}){0,3}$"
    public static var jsonSchema: JSONSchema {
        .object([
            "min": .string("Inclusive; a dotted numeric version such as 5.2.0.", pattern: versionPattern),
            "max": .string("Exclusive; greater than min.", pattern: versionPattern),
        ], description: "App versions from min (inclusive) to max (exclusive); either may be left out.")
    }
}

extension Targeting: JSONSchemaDescribable {
    public static var schemaName: String? { "Targeting" }
    public static var jsonSchema: JSONSchema {
        .object([
            "platforms": .array(of: .oneOf(CampaignRules.platforms.sorted()), minItems: 1, uniqueItems: true),
            "appVersions": .of(VersionRange.self),
            "regions": .array(of: Region.schema("A region, kept in lower case (a request's matches in any case)."), minItems: 1,
                              maxItems: CampaignRules.maxTargets),
            "locales": .array(of: .string("A language tag such as zh-CN or en.", pattern: "^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$"), minItems: 1,
                               maxItems: CampaignRules.maxTargets),
        ], description: "Who the campaign is for. Every part is optional; a part left out means everyone.")
    }
}

extension FrequencyCap: JSONSchemaDescribable {
    public static var schemaName: String? { "FrequencyCap" }
    public static var jsonSchema: JSONSchema {
        .object([
            "shows": .integer("Impressions allowed per device in the window.", minimum: 1, maximum: 1000),
            "hours": .integer("The window, in hours.", minimum: 1, maximum: 720),
        ], required: ["shows", "hours"], description: "At most `shows` impressions per device in any `hours` window.")
    }
}

extension CampaignGoal: JSONSchemaDescribable {
    public static var schemaName: String? { "Goal" }
    public static var jsonSchema: JSONSchema {
        .object([
            "impressions": .integer("Impressions to deliver in each period.", minimum: 1, maximum: Int64(CampaignRules.maxGoalImpressions)),
            "per": .cases(of: GoalPeriod.self, "day: each day in the app's time zone (app.set's timezone); campaign: the whole flight, startsAt to endsAt."),
        ], required: ["impressions", "per"], description: "A delivery goal: campaignd paces the edges to deliver it, never more than 5% over.")
    }
}

extension CampaignFields: JSONSchemaDescribable {
    /// The fields an operator sets, shared by the campaign, `campaign.create` and `campaign.update`.
    public static var fieldSchemas: [(String, JSONSchema)] {
        CodingKeys.allCases.map { ($0.stringValue, schema(of: $0)) }
    }

    /// One field's schema.
    static func schema(of key: CodingKeys) -> JSONSchema {
        switch key {
        case .name: .string("Shown to people: at most \(CampaignRules.maxNameCharacters) characters and \(CampaignRules.maxNameBytes) bytes of UTF-8, with a visible character; no control characters, line breaks or bidirectional controls.",
                            minLength: 1, maxLength: CampaignRules.maxNameCharacters, pattern: "\\S")
        case .app: AppID.schema("The app's id, as launch queries name it.")
        case .startsAt: Timestamp.jsonSchema.described("When it starts to show.")
        case .endsAt: Timestamp.jsonSchema.described("When it stops (exclusive); after startsAt, and in the future when set.")
        case .priority: .integer("Higher shows first (default 50).", minimum: 0, maximum: 100)
        case .weight: .integer("Share among campaigns of the same priority (default 100).", minimum: 1, maximum: 1000)
        case .forced: .boolean("Answers before every other campaign (default false).")
        case .countdown: .integer("Seconds the ad shows (default 3).", minimum: 1, maximum: 10)
        case .skippable: .boolean("Whether the user may skip it (default true).")
        case .skipAfter: .integer("Seconds before the skip button shows; skippable campaigns only, at most countdown.", minimum: 0, maximum: 10)
        case .launchTypes: .array(of: LaunchType.jsonSchema, "When it may show (default [\"cold\"]).", minItems: 1, uniqueItems: true)
        case .minBackgroundSeconds: .integer("Required with the hot launch type, refused without it: the time in the background a hot start needs.", minimum: 0, maximum: 86_400)
        case .jump: .of(Jump.self)
        case .creatives: .array(of: .of(CreativeRef.self), "The variants, in one or more screen shapes, each uploaded first; no repeats.", minItems: 1,
                                 maxItems: CampaignRules.maxCreatives)
        case .targeting: .of(Targeting.self)
        case .frequencyCap: .of(FrequencyCap.self)
        case .audience: .cases(of: Audience.self, "all (default): every device the targeting reaches; test: only the testDevices.")
        case .testDevices: .array(of: .string(minLength: 1, maxLength: 128), "Device ids a test audience is answered to; required (at least one) with audience test.",
                                    maxItems: CampaignRules.maxTestDevices, uniqueItems: true)
        case .display: .cases(of: CampaignDisplay.self, "full (default): the whole screen; half: the top 80%, the app's logo strip below.")
        case .clickArea: .cases(of: CampaignClickArea.self, "button (default): a tap on the ad's button opens the jump; full: a tap anywhere on the ad.")
        case .videoSound: .boolean("Whether a video creative plays with its sound (default false: muted).")
        case .advertiser: partySchema("Who the ad is for, shown to people with it (\"Ad by …\"); required in the eu market later.")
        case .paidBy: partySchema("Who paid for the ad, when not the advertiser.")
        case .goal: .of(CampaignGoal.self)
        case .pacing: .cases(of: CampaignPacing.self, "How the goal is spent; only with a goal (refused without one). even (the default with a goal): spread over the period's time left; asap: as fast as traffic allows until the goal is met.")
        }
    }

    /// The advertiser's and the payer's schema: a display name, kept as given (not trimmed).
    private static func partySchema(_ description: String) -> JSONSchema {
        .string("\(description) At most \(CampaignRules.maxPartyCharacters) characters and \(CampaignRules.maxPartyBytes) bytes of UTF-8, with a visible character, no space at either end; no control characters, line breaks or bidirectional controls.",
                minLength: 1, maxLength: CampaignRules.maxPartyCharacters, pattern: "^\\S(.*\\S)?$")
    }

    public static var jsonSchema: JSONSchema {
        .object(properties: fieldSchemas, required: ["name", "app", "startsAt", "endsAt", "creatives"],
                description: "A new campaign's fields; those left out take their defaults. A bad field is refused with -32602 naming it.")
    }
}

extension Campaign: JSONSchemaDescribable {
    public static var schemaName: String? { "Campaign" }
    public static var jsonSchema: JSONSchema {
        var properties: [(String, JSONSchema)] = [("id", .integer("Assigned by campaignd.", minimum: 1))]
        properties += CampaignFields.fieldSchemas
        properties += [
            ("state", CampaignState.jsonSchema),
            ("version", .integer("Grows by one with each operator's or scheduler's change (pacing's shares keep it).", minimum: 1)),
            ("createdAt", Timestamp.jsonSchema),
            ("updatedAt", Timestamp.jsonSchema),
            ("share", JSONSchema.number("The share of devices it is answered to, set by campaignd's pacing (an updated change by the actor pacing, the version kept) for a campaign with a goal: absent, every device; 0, the goal met for the period (the campaign is then also listed as revoked).")
                      .with("minimum", .number(JSONNumber(0))).with("maximum", .number(JSONNumber(1)))),
        ]
        let optional = Set(CampaignFields.CodingKeys.allCases.filter(\.isOptionalInCampaign).map(\.stringValue) + ["share"])
        return .object(properties: properties, required: properties.map(\.0).filter { !optional.contains($0) },
                       description: "A launch-ad campaign.")
    }
}
