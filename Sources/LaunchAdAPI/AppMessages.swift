import JSONRPC
import LaunchAdDomain

/// `app.get`'s params.
public struct AppParams: Codable, Sendable, Hashable {
    public var app: String

    public init(app: String) {
        self.app = app
    }
}

/// `app.get`'s answer: the app (its defaults when never set) and its latest changes, newest first.
public struct AppResult: Codable, Sendable, Hashable {
    public var app: AppSettings
    public var changes: [AppChange]

    /// How many changes `app.get` answers.
    public static let maxChanges = 20

    public init(app: AppSettings, changes: [AppChange]) {
        self.app = app
        self.changes = changes
    }
}

/// `app.set`'s answer: the app as set, and the live, scheduled and paused campaigns of the app that break its
/// market's rules (none of them changed; a paused one would be refused on resume).
public struct AppSetResult: Codable, Sendable, Hashable {
    public var app: AppSettings
    public var breaking: [BreakingCampaign]

    public init(app: AppSettings, breaking: [BreakingCampaign]) {
        self.app = app
        self.breaking = breaking
    }
}

/// `app.list`'s answer: every app set, by id (the markets' rules are `adctl app rules`' and the documents').
public struct AppListResult: Codable, Sendable, Hashable {
    public var apps: [AppSettings]

    public init(apps: [AppSettings]) {
        self.apps = apps
    }
}

extension Market: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .cases(of: Market.self, "The market the app is published in, whose rules its campaigns keep:\n\n" + MarketRules.markdownTable)
    }
}

extension AppSettings: JSONSchemaDescribable {
    public static var schemaName: String? { "App" }
    public static var jsonSchema: JSONSchema {
        .object([
            "app": AppID.schema("The app's id, as campaigns and launch.query name it."),
            "market": Market.jsonSchema,
            "timezone": .string("An IANA time zone name of the tz database: where the app's day begins (default UTC): app.stats and its campaigns' campaign.stats by day cut days there."),
            "logo": .string("The sha256 of an uploaded creative: the logo shown below a half ad.", pattern: "^[0-9a-f]{64}$"),
            "updatedAt": Timestamp.jsonSchema.described("When it was last set; absent for an app never set (its defaults)."),
            "reportPause": .integer("The threshold on reports (launch.report kind reported; an edge counts a device's report of a campaign once an hour): campaignd pauses a live campaign of the app, as a change by the actor rules, when a report brings its reports of the current or previous UTC hour to this number, hours before the campaign's last resume not counted; absent: never.",
                                    minimum: Int64(AppSettings.reportPauseRange.lowerBound), maximum: Int64(AppSettings.reportPauseRange.upperBound)),
        ], required: ["app", "market", "timezone"], description: "What campaignd knows of an app.")
    }
}

extension AppPatch: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object([
            "app": AppID.schema("The app's id."),
            "market": Market.jsonSchema.described("The app's market (an app never set is global)."),
            "timezone": .string("An IANA time zone name of the tz database, such as Asia/Shanghai (an app never set is in UTC); an abbreviation or offset is refused."),
            "logo": .string("The sha256 of an uploaded creative, or \"\" to remove the logo.", pattern: "^([0-9a-f]{64})?$"),
            "reportPause": .integer("The threshold on reports: a live campaign of the app is paused (actor rules) when its reports of the current or previous UTC hour reach it, hours before its last resume not counted; \(AppSettings.reportPauseRange.lowerBound) to \(AppSettings.reportPauseRange.upperBound); 0 turns it off.",
                                    minimum: 0, maximum: Int64(AppSettings.reportPauseRange.upperBound)),
        ], required: ["app"], description: "A patch: only the fields given change; an app never set takes the defaults for the others.")
    }
}

extension MarketRuleBreach: JSONSchemaDescribable {
    public static var schemaName: String? { "MarketRuleBreach" }
    public static var jsonSchema: JSONSchema {
        .object([
            "field": .string("The campaign's field."),
            "market": Market.jsonSchema,
            "rule": .string("What the field must be."),
            "source": .string("The law or regulator the rule comes from."),
        ], required: ["field", "market", "rule", "source"], description: "A rule of a market a campaign breaks.")
    }
}

extension BreakingCampaign: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object([
            "id": .integer("The campaign's id.", minimum: 1),
            "name": .string(),
            "state": CampaignState.jsonSchema.described("live or scheduled."),
            "breaches": .array(of: .of(MarketRuleBreach.self), "Every rule it breaks.", minItems: 1),
        ], required: ["id", "name", "state", "breaches"], description: "A live or scheduled campaign that breaks its app's market's rules.")
    }
}

extension AppChange: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object([
            "at": Timestamp.jsonSchema,
            "actor": .string("Who made the change: the operator's key name (or CURVE key), the console's user, or local."),
            "before": JSONSchema.of(AppSettings.self).described("The app before; absent when the change first set it."),
            "after": JSONSchema.of(AppSettings.self).described("The app after."),
        ], required: ["at", "actor", "after"], description: "One change to an app.")
    }
}

extension AppParams: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema { .object(["app": AppID.schema("The app's id.")], required: ["app"]) }
}

extension AppResult: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object([
            "app": .of(AppSettings.self),
            "changes": .array(of: AppChange.jsonSchema, "Its latest \(maxChanges) changes, newest first (none for an app never set)."),
        ], required: ["app", "changes"])
    }
}

extension AppSetResult: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object([
            "app": .of(AppSettings.self),
            "breaking": .array(of: BreakingCampaign.jsonSchema, "The live, scheduled and paused campaigns of the app that break its market's rules, by id (a paused one would be refused on resume); app.set changes none of them (pause or update them)."),
        ], required: ["app", "breaking"])
    }
}

extension AppListResult: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object(["apps": .array(of: .of(AppSettings.self), "Every app set, by id; an app never set is global, in UTC.")], required: ["apps"])
    }
}
