import JSONRPC

// The schema of `launch.prefetch`'s params, a property for each of its `CodingKeys`, with the bounds its checks enforce.

extension LaunchPrefetchParams: JSONSchemaDescribable {
    /// The schema of each param: a param added to `CodingKeys` does not compile until it has one.
    static func schema(of field: CodingKeys) -> JSONProperty {
        switch field {
        case .app, .platform, .appVersion, .region, .locale:
            targetSchema(of: field)!
        case .screen:
            .optional(.of(LaunchQueryParams.Screen.self))
        case .horizonHours:
            .optional(.integer("How far ahead to look (default \(Rules.defaultHorizonHours)).", minimum: Int64(Rules.horizonHours.lowerBound),
                               maximum: Int64(Rules.horizonHours.upperBound)))
        case .cached:
            .optional(cachedSchema)
        }
    }

    public static var jsonSchema: JSONSchema { .object(CodingKeys.self, schema(of:)) }
}
