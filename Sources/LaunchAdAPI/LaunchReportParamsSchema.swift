import JSONRPC
import LaunchAdDomain

// The schemas of `launch.report`'s params and events, a property for each of their `CodingKeys`, with the bounds
// the edge's checks enforce.

extension LaunchEvent: JSONSchemaDescribable {
    /// The schema of each member: a member added to `CodingKeys` does not compile until it has one.
    static func schema(of field: CodingKeys) -> JSONProperty {
        switch field {
        case .eventId:
            .required(.string("Unique per event; a retry sends the same id and is counted once.",
                              minLength: Rules.eventIdLength.lowerBound, maxLength: Rules.eventIdLength.upperBound))
        case .type:
            .required(.cases(of: Kind.self, "impression, click and skip: of a campaign; reported: the user reported the campaign's ad (with a reason), counted as reports in campaign.stats; request (the app asked), noAd (nothing to show), timeout (the budget passed and nothing was shown) and failed (the media could not be shown): of an app's launch, counted by app and hour for app.stats."))
        case .campaignId:
            .optional(campaignIDSchema.described("A campaign the edge knows: required for impression, click, skip and reported; optional for request, noAd, timeout and failed."))
        case .deviceId:
            .required(.string(minLength: Rules.deviceIdLength.lowerBound, maxLength: Rules.deviceIdLength.upperBound))
        case .sha256:
            .optional(.sha256("The variant shown, for the rotation."))
        case .at:
            .optional(Timestamp.jsonSchema.described("When it happened, within the last \(Rules.maxAgeDays) days (default: when received)."))
        case .app:
            .optional(AppID.schema("The app's id, as launch.query's app: required for request, noAd, timeout and failed; on an impression, click or skip, the campaign's app."))
        case .reason:
            .optional(.cases(of: ReportReason.self, "Why the user reported the ad: required for reported, refused on the other kinds."))
        }
    }

    public static var jsonSchema: JSONSchema { .object(CodingKeys.self, schema(of:)) }
}

extension LaunchReportParams: JSONSchemaDescribable {
    /// The schema of each member: a member added to `CodingKeys` does not compile until it has one.
    static func schema(of field: CodingKeys) -> JSONProperty {
        switch field {
        case .events: .required(.array(of: LaunchEvent.jsonSchema, minItems: eventCount.lowerBound, maxItems: eventCount.upperBound))
        }
    }

    public static var jsonSchema: JSONSchema { .object(CodingKeys.self, schema(of:)) }
}
