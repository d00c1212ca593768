import JSONRPC
import LaunchAdDomain

// The JSON Schemas of every params and result type of the three sockets. The bounds are those the handlers
// enforce; the golden examples in proto-docs/examples are validated against these and decoded by the types.

private let epochSchema = JSONSchema.string("The campaign database's random id; a new database is a new epoch.")
private let edgeIDSchema = JSONSchema.string("The edge's id.", minLength: 1, maxLength: EdgeID.maxBytes)
let campaignIDSchema = JSONSchema.integer("A campaign's id.", minimum: 1)

/// What an edge acknowledges, and what campaignd lists of each edge.
private let edgeAckProperties: [(String, JSONSchema)] = [
    ("edgeId", edgeIDSchema),
    ("region", Region.schema("The edge's region (its --region).")),
    ("epoch", .string("The epoch of the state the edge holds (empty before it holds one).", maxLength: PeerNumbers.maxEpochBytes,
                      pattern: "^[A-Za-z0-9_-]*$")),
    ("appliedSeq", .integer("The last sequence number the edge applied: at most the receiver's own (campaignd's, or that of the relay taking it).", minimum: 0)),
]

/// `mac`: an edge's seal of an acknowledgement or a report (proto-docs' "Whose word an acknowledgement is").
private let macSchema = JSONSchema.string("With CURVE: HMAC-SHA256 of the record's sealed fields, keyed by what only the edge and campaignd can derive from their CURVE keys; relays pass it on untouched (absent without CURVE).", minLength: 64, maxLength: 64, pattern: "^[0-9a-f]{64}$")

/// `via`: the relay path of an acknowledgement, a report or a listed edge.
private let viaSchema = JSONSchema.array(of: edgeIDSchema, "The relays it came through, the one nearest campaignd first (absent: it speaks to campaignd itself).", maxItems: 16)

// MARK: Admin

extension CreativeUploadParams: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object([
            "contentType": .string("The declared type, checked against the bytes: one of \(CreativeInspector.contentTypes.sorted().joined(separator: ", ")) (image/jpg is taken as image/jpeg; case does not matter)."),
            "data": .base64("The file's bytes, standard padded base64; at most campaignd's creative size limit (5 MiB by default).", minLength: 4),
        ], required: ["contentType", "data"])
    }
}

extension CampaignChangeResult: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object([
            "campaign": .of(Campaign.self).described("The campaign after the change."),
            "seq": .integer("The change's sequence number; adctl --wait waits until every edge has acknowledged it.", minimum: 1),
        ], required: ["campaign", "seq"])
    }
}

extension CampaignUpdateParams: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object(properties: [("id", campaignIDSchema)] + CampaignFields.fieldSchemas, required: ["id"],
                description: "The campaign and the fields to change; fields left out keep their value.")
    }
}

extension CampaignID: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema { .object(["id": campaignIDSchema], required: ["id"]) }
}

extension CampaignResult: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema { .object(["campaign": .of(Campaign.self)], required: ["campaign"]) }
}

extension CampaignListParams: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object([
            "app": AppID.schema("Only this app's campaigns."),
            "state": CampaignState.jsonSchema.described("Only campaigns in this state (default: every state but deleted)."),
        ])
    }
}

extension CampaignListResult: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object(["campaigns": .array(of: .of(Campaign.self), "By id.")], required: ["campaigns"])
    }
}

extension EdgeInfo: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        let properties = edgeAckProperties + [
            ("lastSeen", Timestamp.jsonSchema.described("When its last acknowledgement came.")),
            ("stale", .boolean("Not heard from for more than 5 seconds (an edge not heard from for campaignd's --edge-retention is no longer listed).")),
        ]
        return .object(properties: properties + [("via", viaSchema)], required: properties.map(\.0))
    }
}

extension EdgeListResult: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object([
            "edges": .array(of: EdgeInfo.jsonSchema, "By edge id."),
            "seq": .integer("campaignd's own sequence number, to compare with each edge's.", minimum: 0),
            "epoch": .string("campaignd's epoch: an edge's appliedSeq counts only in the same epoch."),
        ], required: ["edges", "seq"])
    }
}

extension CampaignStatsParams: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object([
            "id": campaignIDSchema.described("One campaign (default: every campaign not deleted)."),
            "from": Timestamp.jsonSchema.described("The series' start, taken back to its bucket's start (default: to less a day by hour, 30 days by day)."),
            "to": Timestamp.jsonSchema.described("The series' end, not included (default: now). At most 31 days after from by hour, 366 by day."),
            "by": JSONSchema.cases(of: StatsBucket.self, "The bucket (default hour): a UTC hour, or a day in the campaign's app's timezone (in UTC for every campaign at once)."),
            "split": .array(of: .cases(of: StatsSplit.self), "Split each bucket by creative, by region (the edge's), or both.", uniqueItems: true),
        ], description: "Totals; with any of from, to, by or split, a series over time as well.")
    }
}

extension CampaignStatsResult: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object([
            "stats": .array(of: CampaignStats.jsonSchema, "Totals, by campaign id."),
            "series": .array(of: StatsPoint.jsonSchema, "When asked for: by campaign, bucket, creative and region; buckets with no event are left out. Hourly counts are kept for campaignd's --stats-retention (90 days by default)."),
            "timezone": .string("With a series: the time zone its days begin in (the campaign's app's timezone; UTC for every campaign at once)."),
            "pacing": .array(of: PacingStats.jsonSchema, "Each live campaign with a goal among those asked for: its period so far and the forecast."),
        ], required: ["stats"])
    }
}

extension PacingStats: JSONSchemaDescribable {
    public static var schemaName: String? { "PacingStats" }
    public static var jsonSchema: JSONSchema {
        .object([
            "id": .integer("The campaign.", minimum: 1),
            "goal": .of(CampaignGoal.self),
            "pacing": .cases(of: CampaignPacing.self, "even: spread over the period; asap: as fast as traffic allows."),
            "from": Timestamp.jsonSchema.described("The period's start: the day's in the app's time zone, or the flight's."),
            "to": Timestamp.jsonSchema.described("The period's end (exclusive)."),
            "delivered": .integer("Impressions the edges reported in the period so far.", minimum: 0),
            "pace": .number("Delivered against an even spread of the goal by now: 1 on pace, below 1 behind, above 1 ahead."),
            "share": .number("The serve share the edges apply, 0 to 1 (1: every device)."),
            "projected": .integer("What the period will end at, at the traffic seen: below the goal when there is too little traffic.", minimum: 0),
            "completed": .boolean("The goal is met for the period: the campaign is not answered until the next one."),
        ], required: ["id", "goal", "pacing", "from", "to", "delivered", "pace", "share", "projected", "completed"],
           description: "A campaign's goal for the current period and the forecast line.")
    }
}

// MARK: Sync

extension ChangesParams: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object([
            "epoch": epochSchema.described("The epoch the edge holds; another epoch is answered with -32005."),
            "since": .integer("The last sequence number the edge applied; the changes after it are returned.", minimum: 0),
            "limit": .integer("The most changes to return (default 1000; taken as 1 to 10000)."),
        ], required: ["epoch", "since"])
    }
}

extension SnapshotParams: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object([
            "after": .integer("Start the page after this campaign id: 0 (or absent) for the first page, then the last page's `next`.", minimum: 0),
            "limit": .integer("The most campaigns on the page, 1 to \(SyncAPI.maxSnapshotPage) (default \(SyncAPI.defaultSnapshotPage) once `after` is given).",
                              minimum: 1, maximum: Int64(SyncAPI.maxSnapshotPage)),
        ], description: "Both absent: the whole snapshot in one answer. Either present: one page.")
    }
}

extension ChangesResult: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object([
            "epoch": epochSchema,
            "seq": .integer("campaignd's sequence number now; the changes stop short of it when `limit`, or about 4 MiB of campaigns, cut them.", minimum: 0),
            "changes": .array(of: Change.jsonSchema, "In sequence order, without gaps."),
        ], required: ["epoch", "seq", "changes"])
    }
}

extension CreativeChunkParams: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object([
            "sha256": .sha256("The creative."),
            "offset": .integer("Where to start, in bytes (default 0; at most the size).", minimum: 0),
            "length": .integer("The most bytes to return (default and most: 1 MiB).", minimum: 1, maximum: Int64(SyncAPI.maxChunk)),
        ], required: ["sha256"])
    }
}

extension CreativeChunk: JSONSchemaDescribable {
    public static var schemaName: String? { "CreativeChunk" }
    public static var jsonSchema: JSONSchema {
        .object([
            "sha256": .sha256(),
            "contentType": .oneOf(CreativeInspector.contentTypes.sorted()),
            "width": .integer("Pixels.", minimum: 1, maximum: 16_384),
            "height": .integer("Pixels.", minimum: 1, maximum: 16_384),
            "size": .integer("The whole creative's size in bytes.", minimum: 1),
            "durationMs": .integer("How long the creative plays once, in milliseconds; 0 for a still image. Absent from an older campaignd or relay: read as 0.", minimum: 0, maximum: Int64(CreativeInspector.maxDurationMs)),
            "offset": .integer("Where these bytes start.", minimum: 0),
            "data": .base64("The bytes from offset, at most 1 MiB; empty at the end."),
        ], required: ["sha256", "contentType", "width", "height", "size", "durationMs", "offset", "data"],
                description: "A piece of a creative's bytes.")
    }
}

extension EdgeAck: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object(properties: edgeAckProperties + [
            ("via", viaSchema),
            ("sentAt", .integer("With CURVE: when the edge sent it, in milliseconds since 1970 by the edge's clock, sealed; campaignd takes it only newer than the last it took from that edge and within 30 s of its own clock.", minimum: 0)),
            ("mac", macSchema),
        ], required: edgeAckProperties.map(\.0))
    }
}

extension EdgeAcks: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object(["acks": .array(of: EdgeAck.jsonSchema, "The newest acknowledgement of each edge behind the relay.", maxItems: EdgeAcks.maxAcks)],
                required: ["acks"])
    }
}

extension EdgeAcksResult: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object([
            "taken": .integer("How many were taken.", minimum: 0),
            "refused": .array(of: edgeIDSchema, "The edges whose acknowledgements were left out: for their numbers (a seq beyond the receiver's, a bad epoch) or, with CURVE, for their seal (missing, not the edge's, or a replay); absent when none were.", maxItems: EdgeAcks.maxAcks),
        ], required: ["taken"])
    }
}

extension EdgeAckResult: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object(["seq": .integer("The sequence number taken.", minimum: 0)], required: ["seq"])
    }
}

extension EdgeReport: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object([
            "edgeId": edgeIDSchema,
            "reportId": .integer("Grows with each report, so a report sent twice is counted once: the edge's clock in milliseconds (one more than its last when the clock went back), at most a day (86400000) ahead of the receiver's clock.", minimum: 1),
            "counts": .array(of: CampaignStats.jsonSchema(maxCount: PeerNumbers.maxCount), "Counts per campaign since the last report.", maxItems: 10_000),
            "hourly": .array(of: HourlyCount.jsonSchema, "The same counts by campaign, hour and creative (absent: filed under the hour campaignd receives them).", maxItems: EdgeReport.maxHourly),
            "apps": .array(of: AppHourlyCount.jsonSchema, "Launches by app and hour for app.stats: request, noAd, timeout and failed reports, and impressions of the app's campaigns as shows; one item per app and hour (absent when none).", maxItems: EdgeReport.maxAppHours),
            "region": Region.schema("The edge's region, under which the counts are filed (absent: its acknowledgements' region)."),
            "via": viaSchema,
            "mac": macSchema,
        ], required: ["edgeId", "reportId", "counts"])
    }
}

extension EdgeReportResult: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object([
            "accepted": .boolean("Whether the counts were added now."),
            "lastReportId": .integer("The last report id taken from this edge: the report's own when it was a resend; greater when the report's id was too low and its counts were not taken."),
        ], required: ["accepted", "lastReportId"])
    }
}

// MARK: Client

/// A creative's facts, as the launch answer and the prefetch list give them.
private let creativeProperties: [(String, JSONSchema)] = [
    ("sha256", .sha256()),
    ("contentType", .oneOf(CreativeInspector.contentTypes.sorted())),
    ("width", .integer("Pixels.", minimum: 1, maximum: 16_384)),
    ("height", .integer("Pixels.", minimum: 1, maximum: 16_384)),
    ("size", .integer("Bytes.", minimum: 1)),
    ("durationMs", .integer("How long it plays once, in milliseconds, read from the file at upload: an animated GIF's frame delays summed (a delay of 10 ms or less counts as 100 ms, as players draw it), an MP4's duration (its video track's mdhd, else its mvhd); 0 for a still image. Absent from older edges: read it as 0.", minimum: 0, maximum: Int64(CreativeInspector.maxDurationMs))),
]

extension LaunchAnswer: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        let creative = JSONSchema.object(properties: creativeProperties, required: creativeProperties.map(\.0))
        let adFields = ["id", "version", "showMoment", "launchTypes", "imgUrl", "creative", "jumpType", "jumpValue", "countdown",
                        "skippable", "forced", "expiresAt"]
        return JSONSchema.object([
            "hasAd": .boolean("Whether to show an ad now; the ad's fields come only when true."),
            "id": campaignIDSchema.described("The campaign."),
            "version": .integer("The campaign's version.", minimum: 1),
            "showMoment": .integer("0: show the ad at this launch (the campaign is forced, or its creative is among the query's cached); 1: download it now and show it from the cache at a later launch.", minimum: 0, maximum: 1),
            "launchTypes": .array(of: LaunchType.jsonSchema, "The launch moments the campaign is for (before showMoment was a number, it said them).", minItems: 1, uniqueItems: true),
            "imgUrl": .string("Where to download the creative: the edge's /creatives/{sha256}.", format: "uri"),
            "creative": creative,
            "jumpType": .cases(of: Jump.Kind.self),
            "jumpValue": .string("The URL or deep link; empty for none."),
            "countdown": .integer("Seconds to show.", minimum: 1, maximum: 10),
            "skippable": .boolean(),
            "skipAfter": .integer("Seconds before the skip button shows, when set.", minimum: 0, maximum: 10),
            "forced": .boolean(),
            "display": .cases(of: CampaignDisplay.self, "How much of the screen the ad takes; absent: full."),
            "clickArea": .cases(of: CampaignClickArea.self, "What a tap opens the jump from; absent: button."),
            "videoSound": .boolean("Written only when true: a video creative plays with its sound; absent: muted."),
            "advertiser": .string("The campaign's advertiser, to show with the ad (\"Ad by …\"); absent when the campaign has none.",
                                  minLength: 1, maxLength: CampaignRules.maxPartyCharacters),
            "paidBy": .string("Who paid for the ad, when the campaign says; absent otherwise.", minLength: 1, maxLength: CampaignRules.maxPartyCharacters),
            "expiresAt": Timestamp.jsonSchema.described("The campaign's end: never show the ad after it, whatever the cache says."),
            "epoch": epochSchema.described("The state the edge answered from."),
            "seq": .integer("The sequence number of the state the edge answered from.", minimum: 0),
            "revoked": .array(of: campaignIDSchema, "Campaigns of the app the client must delete from its cache (expired or deleted, paused ones while paused, and those whose delivery goal is met while their share is 0).", maxItems: 100),
        ], required: ["hasAd", "epoch", "seq", "revoked"], description: "The launch answer, with the field names apps already parse.")
        .with("oneOf", [
            ["properties": ["hasAd": ["const": false]]],
            ["properties": ["hasAd": ["const": true]], "required": .array(adFields.map(JSONValue.string))],
        ])
    }
}

extension EdgeStatus: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object([
            "edgeId": edgeIDSchema,
            "region": Region.schema("This edge's region (its --region)."),
            "epoch": epochSchema.described("The epoch of the state the edge answers from (empty before any)."),
            "seq": .integer("The sequence number the edge has applied.", minimum: 0),
            "loaded": .boolean("Whether it holds a state at all (from disk or campaignd)."),
            "stale": .boolean("Not in touch with campaignd."),
            "skewSeconds": .number("campaignd's clock minus the edge's, estimated from heartbeats."),
            "campaigns": .integer(minimum: 0),
            "creatives": .integer(minimum: 0),
            "resyncs": .integer("Snapshots taken since start.", minimum: 0),
            "gaps": .integer("Gaps seen in the update stream since start.", minimum: 0),
            "cacheWritable": .boolean("False while the edge cannot write its cache folder (full or read-only): it answers from memory."),
            "appliedAt": Timestamp.jsonSchema.described("""
                When, by the edge's clock, its state reached `seq` (a change applied, a catch-up or a snapshot); absent while it \
                answers from the state it loaded at start.
                """),
        ], required: ["edgeId", "region", "epoch", "seq", "loaded", "stale", "skewSeconds", "campaigns", "creatives", "resyncs", "gaps",
                      "cacheWritable"])
    }
}

extension LaunchReportResult: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object([
            "accepted": .integer("Events counted now.", minimum: 0),
            "duplicates": .integer("Events counted before (same event id).", minimum: 0),
        ], required: ["accepted", "duplicates"])
    }
}

extension PrefetchItem: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        let properties = [("campaignId", campaignIDSchema), ("url", .string("Where to download it.", format: "uri"))]
            + creativeProperties + [("startsAt", Timestamp.jsonSchema), ("endsAt", Timestamp.jsonSchema)]
        return .object(properties: properties, required: properties.map(\.0))
    }
}

extension LaunchPrefetchResult: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object([
            "download": .array(of: PrefetchItem.jsonSchema, "What to download now and keep, with each campaign's window: given a screen, only each campaign's creatives nearest its aspect ratio."),
            "delete": .array(of: .sha256(), "Cached creatives no campaign ahead uses (on this screen, when given): delete them."),
            "revoked": .array(of: campaignIDSchema, "Campaigns the client must delete (expired or deleted, paused ones while paused, and those whose delivery goal is met while their share is 0)."),
            "epoch": epochSchema,
            "seq": .integer(minimum: 0),
        ], required: ["download", "delete", "revoked", "epoch", "seq"])
    }
}
