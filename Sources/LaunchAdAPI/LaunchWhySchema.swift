import JSONRPC
import LaunchAdDomain

// The schemas of `launch.why`'s params (a property for each of its `CodingKeys`, with the launch query's bounds) and
// of its answer.

extension LaunchWhyParams: JSONSchemaDescribable {
    /// The schema of each param: a param added to `CodingKeys` does not compile until it has one.
    static func schema(of field: CodingKeys) -> JSONProperty {
        typealias Rules = LaunchQueryParams.Rules
        switch field {
        case .app, .platform, .appVersion, .region, .locale:
            return targetSchema(of: field)!
        case .deviceId:
            return .required(.string("The device id the launch query gave.", minLength: Rules.deviceIdLength.lowerBound,
                                     maxLength: Rules.deviceIdLength.upperBound))
        case .id:
            return .required(.integer("The campaign the device was answered (the launch answer's id).", minimum: 1))
        }
    }

    public static var jsonSchema: JSONSchema { .object(CodingKeys.self, schema(of:)) }
}

extension WhyReason: JSONSchemaDescribable {
    public static var schemaName: String? { "WhyReason" }
    public static var jsonSchema: JSONSchema {
        .object([
            "field": JSONSchema.cases(of: WhyField.self, "The targeting fact: platform (the device's, among those targeted); appVersion (the range targeted, >=MIN <MAX); region and locale (the targeted one the device's matched); launchType (hot: answered only when the app comes back from the background); audience (test: this device is one of the campaign's test devices); forced (true: answered ahead of every campaign that is not)."),
            "value": .string("The value that matched."),
        ], required: ["field", "value"])
    }
}

extension LaunchWhyResult: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object([
            "id": .integer("The campaign.", minimum: 1),
            "advertiser": .string("On whose behalf the ad is shown; absent when the campaign names none."),
            "paidBy": .string("Who paid for the ad; absent when the campaign names none (the advertiser paid)."),
            "reasons": .array(of: .of(WhyReason.self), "The main parameters by which the device was chosen: the campaign's targeting facts that it met, in this order; empty when the campaign targets every device of its app."),
        ], required: ["id", "reasons"])
    }
}
