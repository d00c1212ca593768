import JSONRPC
import LaunchAdDomain

// The schema of `launch.query`'s params, a property for each of its `CodingKeys`, with the bounds its checks enforce.

/// Who asks, in launch.query and launch.prefetch (validated by the same rules): the schema of each member of the
/// target both params begin with.
func targetSchema<Key: LaunchTargetKey>(of field: Key) -> JSONProperty? {
    typealias Rules = LaunchQueryParams.Rules
    switch field {
    case .app:
        return .required(AppID.schema("The app's id."))
    case .platform:
        return .required(.oneOf(CampaignRules.platforms.sorted()))
    case .appVersion:
        return .required(.string("A dotted numeric version such as 5.2.0 (1 to 4 numbers).", pattern: "^[0-9]{1,9}(\\.[0-9]{1,9}){0,3}$"))
    case .region:
        return .optional(Region.schema("The client's region, as campaigns target it (such as cn-east); matched in any case of its ASCII letters."))
    case .locale:
        return .optional(.string("A language tag such as zh-CN.", minLength: Rules.localeLength.lowerBound, maxLength: Rules.localeLength.upperBound))
    default:
        return nil
    }
}

/// The creatives a client holds, in launch.query and launch.prefetch.
let cachedSchema = JSONSchema.array(of: .sha256(), "The sha256 of the creatives the client holds.",
                                    maxItems: LaunchQueryParams.Rules.cachedCount)

extension LaunchQueryParams.Screen: JSONSchemaDescribable {
    public static var schemaName: String? { "Screen" }
    public static var jsonSchema: JSONSchema {
        .object(CodingKeys.self, description: "The screen, to choose the creative whose aspect ratio is nearest.") { field in
            switch field {
            case .width, .height: .required(.integer("Pixels.", minimum: Int64(sides.lowerBound), maximum: Int64(sides.upperBound)))
            }
        }
    }
}

extension LaunchQueryParams: JSONSchemaDescribable {
    /// The schema of each param: a param added to `CodingKeys` does not compile until it has one.
    static func schema(of field: CodingKeys) -> JSONProperty {
        switch field {
        case .app, .platform, .appVersion, .region, .locale:
            targetSchema(of: field)!
        case .deviceId:
            .optional(.string("Opaque (hashed by the client); keeps the answer stable for the device and feeds caps and rotation.",
                              minLength: Rules.deviceIdLength.lowerBound, maxLength: Rules.deviceIdLength.upperBound))
        case .screen:
            .optional(.of(Screen.self))
        case .launchType:
            .optional(LaunchType.jsonSchema.described("cold (default) or hot; hot needs backgroundSeconds."))
        case .backgroundSeconds:
            .optional(.integer("How long the app was in the background (hot launches).", minimum: Int64(Rules.backgroundSeconds.lowerBound),
                               maximum: Int64(Rules.backgroundSeconds.upperBound)))
        case .cached:
            .optional(cachedSchema)
        }
    }

    public static var jsonSchema: JSONSchema { .object(CodingKeys.self, schema(of:)) }
}
