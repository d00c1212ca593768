import JSONRPC
import LaunchAdAPI
import LaunchAdDomain
import Testing

/// The client params declare their fields once, as their `CodingKeys`: the readers, the schemas and the checks
/// follow from them. These hold the schemas to the declarations and the checks to their wording; the codec's
/// invariants (`CodecInvariants`) hold every read path to the `Codable` one.
@Suite("launch params", .timeLimit(.minutes(1)))
struct LaunchParamsTests {
    /// The properties of an object schema, in order, and its required ones.
    static func properties(_ schema: JSONSchema) -> (names: [String], required: [String]) {
        guard case .object(let properties)? = schema.json["properties"] else { return ([], []) }
        guard case .array(let required)? = schema.json["required"] else { return (properties.map(\.key), []) }
        return (properties.map(\.key), required.compactMap { if case .string(let name) = $0 { name } else { nil } })
    }

    static func names<Key: JSONFieldKey>(_ keys: Key.Type) -> [String] { Key.allCases.map(\.stringValue) }

    @Test("each params type's schema lists its coding keys, in order, the required ones first")
    func schemasFollowTheDeclarations() {
        #expect(Self.properties(LaunchQueryParams.jsonSchema).names == Self.names(LaunchQueryParams.CodingKeys.self))
        #expect(Self.properties(LaunchQueryParams.jsonSchema).required == ["app", "platform", "appVersion"])
        #expect(Self.properties(LaunchPrefetchParams.jsonSchema).names == Self.names(LaunchPrefetchParams.CodingKeys.self))
        #expect(Self.properties(LaunchPrefetchParams.jsonSchema).required == ["app", "platform", "appVersion"])
        #expect(Self.properties(LaunchQueryParams.Screen.jsonSchema).names == ["width", "height"])
        #expect(Self.properties(LaunchEvent.jsonSchema).names == Self.names(LaunchEvent.CodingKeys.self))
        #expect(Self.properties(LaunchEvent.jsonSchema).required == ["eventId", "type", "deviceId"])
        #expect(Self.properties(LaunchReportParams.jsonSchema).names == ["events"])
    }

    /// The params through their synthesized `Decodable` conformance (the decoder would read them by their own reader).
    struct ViaCodable: Decodable {
        let value: LaunchQueryParams
        init(from decoder: any Decoder) throws { value = try LaunchQueryParams(from: decoder) }
    }

    @Test("errors name a param by its key, never by its slot, on every read path")
    func errorsNameTheKey() {
        let decoder = JSONValueDecoder()
        for text in [#"{"app":"a","platform":"ios","appVersion":1}"#, #"{"app":"a","platform":"ios"}"#] {
            do {
                _ = try decoder.decode(ViaCodable.self, fromJSON: Array(text.utf8))
                Issue.record("\(text) decoded")
            } catch let error as DecodingError {
                #expect(error.fieldPath == "appVersion")
            } catch {
                Issue.record("\(error)")
            }
            do {
                _ = try decoder.decode(LaunchQueryParams.self, fromJSON: Array(text.utf8))
                Issue.record("\(text) decoded")
            } catch let error as DecodingError {
                #expect(error.fieldPath == "appVersion")
            } catch {
                Issue.record("\(error)")
            }
        }
    }

    /// A value of each param of launch.query, as JSON and as `GET /launch-ad`'s query string spells it: a param added
    /// to the keys does not compile until it has one here.
    static func sample(_ key: LaunchQueryParams.CodingKeys) -> (json: String, query: String) {
        let sha256 = String(repeating: "ab", count: 32)
        return switch key {
        case .app: (#""shop""#, "shop")
        case .platform: (#""android""#, "android")
        case .appVersion: (#""5.2.1""#, "5.2.1")
        case .region: (#""cn-east""#, "cn-east")
        case .locale: (#""zh-CN""#, "zh-CN")
        case .deviceId: (#""d-7""#, "d-7")
        case .screen: (#"{"width":1080,"height":1920}"#, "1080x1920")
        case .launchType: (#""hot""#, "hot")
        case .backgroundSeconds: ("60", "60")
        case .cached: ("[\"\(sha256)\"]", sha256)
        }
    }

    @Test("every param of launch.query reaches the request, alike from the tape, a compact call and GET /launch-ad's query string")
    func everyParamReadAlike() throws {
        let keys = LaunchQueryParams.CodingKeys.allCases
        let json = Array(("{" + keys.map { "\"\($0.stringValue)\":\(Self.sample($0).json)" }.joined(separator: ",") + "}").utf8)
        let query = keys.map { "\($0.stringValue)=\(Self.sample($0).query)" }.joined(separator: "&")
        let tape = try JSONValueDecoder().decode(LaunchQueryParams.self, fromJSON: json).validated()
        let compact = json.withUnsafeBytes { bytes in
            var reader = CompactReader(bytes)
            return LaunchQueryParams.request(compact: &reader)
        }
        let fromQuery = try LaunchAdQuery.request(Substring(query))
        // Every member of the request, by reflection: none left at nothing, so none was dropped on the way.
        let members = Mirror(reflecting: tape).children.map { ($0.label ?? "?", String(describing: $0.value)) }
        #expect(members.count == keys.count)
        for (name, value) in members {
            #expect(value != "nil" && value != "[]", "\(name) was dropped")
        }
        #expect(compact.map { String(describing: $0) } == String(describing: tape))
        #expect(String(describing: fromQuery) == String(describing: tape))
        #expect(tape.deviceId == "d-7" && tape.launchType == .hot && tape.screen?.width == 1080 && tape.cached.count == 1)
    }

    static func refusal(_ params: LaunchQueryParams) -> String? {
        do {
            _ = try params.validated()
            return nil
        } catch {
            return error.message
        }
    }

    @Test("the checks word each rule with its bounds, naming the param")
    func checks() {
        // The params' members are constants (made with `var`s, the reader's value is copied whole on its way out): each
        // case is made afresh.
        func params(app: String = "shop", region: String? = nil, deviceId: String? = nil, screen: LaunchQueryParams.Screen? = nil,
                    launchType: LaunchType? = nil, backgroundSeconds: Int? = nil, cached: [String]? = nil) -> LaunchQueryParams {
            LaunchQueryParams(app: app, platform: "ios", appVersion: "5.2.0", region: region, deviceId: deviceId, screen: screen,
                              launchType: launchType, backgroundSeconds: backgroundSeconds, cached: cached)
        }
        #expect(Self.refusal(params()) == nil)
        #expect(Self.refusal(params(app: String(repeating: "a", count: 65))) == "Invalid params: app: must be 1 to 64 of a-z, 0-9, '.', '_' and '-'")
        #expect(Self.refusal(params(region: "")) == "Invalid params: region: must be 1 to 32 of A-Z, a-z, 0-9 and '-', starting with a letter or digit")
        #expect(Self.refusal(params(deviceId: String(repeating: "d", count: 129))) == "Invalid params: deviceId: must be 1 to 128 bytes")
        #expect(Self.refusal(params(screen: .init(width: 10, height: 16_385))) == "Invalid params: screen.height: must be between 1 and 16384")
        #expect(Self.refusal(params(launchType: .hot)) == "Invalid params: backgroundSeconds: is required for a hot launch")
        #expect(Self.refusal(params(launchType: .hot, backgroundSeconds: 31_536_001))
                == "Invalid params: backgroundSeconds: must be between 0 and 31536000")
        #expect(Self.refusal(params(cached: ["x"])) == "Invalid params: cached[0]: must be 64 lowercase hex characters")
        #expect(Self.refusal(params(cached: Array(repeating: String(repeating: "a", count: 64), count: 65)))
                == "Invalid params: cached: must list at most 64 creatives")
    }

    @Test("a prefetch's horizon defaults to a day and is bounded to a week")
    func horizon() throws {
        var params = LaunchPrefetchParams(app: "shop", platform: "ios", appVersion: "5.2.0")
        #expect(try params.horizon() == 24)
        params.horizonHours = 168
        #expect(try params.horizon() == 168)
        params.horizonHours = 0
        #expect(throws: JSONRPCError.invalidParams(field: "horizonHours", "must be between 1 and 168")) { try params.horizon() }
    }

    @Test("a report's events are checked against their bounds, each error naming the event")
    func reportChecks() throws {
        let now = Timestamp(milliseconds: 1_800_000_000_000)
        let event = LaunchEvent(eventId: "e-1", type: .impression, campaignId: 42, deviceId: "d-1")
        try event.check(at: 0, now: now)
        try LaunchReportParams(events: [event]).checkCount()
        #expect(throws: JSONRPCError.invalidParams(field: "events", "must list 1 to 100 events")) {
            try LaunchReportParams(events: []).checkCount()
        }
        var bad = event
        bad.eventId = ""
        #expect(throws: JSONRPCError.invalidParams(field: "events[3].eventId", "must be 1 to 64 bytes")) { try bad.check(at: 3, now: now) }
        bad = event
        bad.deviceId = String(repeating: "d", count: 129)
        #expect(throws: JSONRPCError.invalidParams(field: "events[0].deviceId", "must be 1 to 128 bytes")) { try bad.check(at: 0, now: now) }
        bad = event
        bad.sha256 = "A"
        #expect(throws: JSONRPCError.invalidParams(field: "events[0].sha256", "must be 64 lowercase hex characters")) {
            try bad.check(at: 0, now: now)
        }
        bad = event
        bad.at = now.adding(seconds: -8 * 86_400)
        #expect(throws: JSONRPCError.invalidParams(field: "events[0].at", "must be within the last 7 days")) { try bad.check(at: 0, now: now) }
        bad.at = now.adding(seconds: 301)
        #expect(throws: JSONRPCError.invalidParams(field: "events[0].at", "must be within the last 7 days")) { try bad.check(at: 0, now: now) }
        bad.at = now.adding(seconds: 299)
        try bad.check(at: 0, now: now)
    }

    @Test("a reported event needs one of the four reasons, which no other kind takes, read alike from the tape and a compact call")
    func reportedReason() throws {
        let now = Timestamp(milliseconds: 1_800_000_000_000)
        var event = LaunchEvent(eventId: "e-1", type: .reported, campaignId: 42, deviceId: "d-1", reason: .repetitive)
        try event.check(at: 0, now: now)
        event.reason = nil
        #expect(throws: JSONRPCError.invalidParams(field: "events[2].reason", "is required for reported (inappropriate, misleading, repetitive, other)")) {
            try event.check(at: 2, now: now)
        }
        event.reason = .other
        event.campaignId = nil
        #expect(throws: JSONRPCError.invalidParams(field: "events[0].campaignId", "is required for impression, click, skip and reported")) {
            try event.check(at: 0, now: now)
        }
        for type in LaunchEvent.Kind.allCases where type != .reported {
            let other = LaunchEvent(eventId: "e-1", type: type, campaignId: 42, deviceId: "d-1", app: "shop", reason: .other)
            #expect(throws: JSONRPCError.invalidParams(field: "events[0].reason", "is only for reported")) { try other.check(at: 0, now: now) }
        }
        // The one reader, from the tape and from a compact call: the same event; an unknown reason refused naming it.
        let json = Array(#"{"events":[{"eventId":"e-1","type":"reported","campaignId":42,"deviceId":"d-1","reason":"misleading"}]}"#.utf8)
        let tape = try JSONValueDecoder().decode(LaunchReportParams.self, fromJSON: json)
        let compact = json.withUnsafeBytes { bytes in
            var reader = CompactReader(bytes)
            return LaunchReportParams(compact: &reader)
        }
        #expect(tape.events.first?.reason == .misleading && compact?.events == tape.events)
        let unknown = Array(#"{"events":[{"eventId":"e-1","type":"reported","campaignId":42,"deviceId":"d-1","reason":"boring"}]}"#.utf8)
        #expect(unknown.withUnsafeBytes { bytes in
            var reader = CompactReader(bytes)
            return LaunchReportParams(compact: &reader)
        } == nil)
        #expect { try JSONValueDecoder().decode(LaunchReportParams.self, fromJSON: unknown) } throws: { error in
            "\(error)".contains("reason")
        }
    }
}
