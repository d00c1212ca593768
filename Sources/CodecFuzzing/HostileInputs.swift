import JSONRPC
import SeededRandomness

/// Inputs a hostile or careless client sends: requests of every public method, with fields given wrong types,
/// huge numbers, long and odd strings, deep nesting, unknown members and mangled bytes (invalid UTF-8, cut
/// short, stray bytes). The seed corpus of the fuzzer and the property tests both come from here.
public enum HostileInputs {
    static let sha = "2fc6016a91d78812d89300fea0710d10e1ba0c7b1692daf2bc1d8786514ed4af"

    /// A well-formed request of each public method (and of `rpc.discover`), named for the corpus.
    public static let samples: [(name: String, json: String)] = [
        ("creative-upload", #"{"jsonrpc":"2.0","id":1,"method":"creative.upload","params":{"contentType":"image/png","data":"iVBORw0KGgoAAAANSUhEUg=="}}"#),
        ("campaign-create", #"{"jsonrpc":"2.0","id":2,"method":"campaign.create","params":{"name":"Double 12","app":"shop","startsAt":"2027-01-01T00:00:00Z","endsAt":"2027-01-02T00:00:00.250+08:00","priority":60,"weight":10,"forced":false,"countdown":5,"skippable":true,"skipAfter":2,"launchTypes":["cold","hot"],"minBackgroundSeconds":30,"jump":{"type":"url","value":"https://shop.example.com/1212"},"creatives":[{"sha256":"\#(sha)","weight":3}],"targeting":{"platforms":["ios","android"],"appVersions":{"min":"5.0","max":"6.1.2"},"regions":["cn-east"],"locales":["zh-CN"]},"frequencyCap":{"shows":2,"hours":24}}}"#),
        ("campaign-update", #"{"jsonrpc":"2.0","id":"u-3","method":"campaign.update","params":{"id":7,"priority":90,"endsAt":"2027-03-01T10:00:00Z","jump":{"type":"deeplink","value":"shop://sale"}}}"#),
        ("campaign-get", #"{"jsonrpc":"2.0","id":4,"method":"campaign.get","params":{"id":1}}"#),
        ("campaign-list", #"{"jsonrpc":"2.0","id":5,"method":"campaign.list","params":{"app":"shop","state":"live"}}"#),
        ("campaign-force", #"{"jsonrpc":"2.0","id":6,"method":"campaign.force","params":{"id":1}}"#),
        ("campaign-expire", #"{"jsonrpc":"2.0","id":7,"method":"campaign.expire","params":{"id":9223372036854775807}}"#),
        ("edge-list", #"{"jsonrpc":"2.0","id":8,"method":"edge.list"}"#),
        ("campaign-stats", #"{"jsonrpc":"2.0","id":9,"method":"campaign.stats","params":{"id":1}}"#),
        ("campaign-stats-series", #"{"jsonrpc":"2.0","id":9,"method":"campaign.stats","params":{"id":1,"from":"2027-01-01T00:00:00Z","to":"2027-01-02T00:00:00+08:00","by":"hour","split":["creative","region"]}}"#),
        ("change-list", #"{"jsonrpc":"2.0","id":20,"method":"change.list","params":{"id":1,"after":16,"limit":50}}"#),
        ("launch-explain", #"{"jsonrpc":"2.0","id":21,"method":"launch.explain","params":{"app":"shop","platform":"ios","appVersion":"5.2.0","region":"cn-east","deviceId":"d-9f2","screen":{"width":1179,"height":2556}}}"#),
        ("sync-snapshot", #"{"jsonrpc":"2.0","id":10,"method":"sync.snapshot","params":[]}"#),
        ("sync-changes", #"{"jsonrpc":"2.0","id":11,"method":"sync.changes","params":{"epoch":"6f1c","since":41,"limit":500}}"#),
        ("creative-get", #"{"jsonrpc":"2.0","id":12,"method":"creative.get","params":{"sha256":"\#(sha)","offset":0,"length":1048576}}"#),
        ("edge-ack", #"{"jsonrpc":"2.0","id":13,"method":"edge.ack","params":{"edgeId":"edge-1","region":"cn-east","epoch":"6f1c","appliedSeq":42}}"#),
        ("edge-acks", #"{"jsonrpc":"2.0","id":13,"method":"edge.acks","params":{"acks":[{"edgeId":"edge-1","region":"cn-east","epoch":"6f1c","appliedSeq":42,"via":["relay-1"]}]}}"#),
        ("edge-report", #"{"jsonrpc":"2.0","id":14,"method":"edge.report","params":{"edgeId":"edge-1","reportId":3,"counts":[{"id":1,"impressions":10,"clicks":2,"skips":1}]}}"#),
        ("edge-report-hourly", #"{"jsonrpc":"2.0","id":14,"method":"edge.report","params":{"edgeId":"edge-1","reportId":4,"counts":[{"id":1,"impressions":10,"clicks":2,"skips":1}],"hourly":[{"id":1,"hour":"2027-01-01T08:00:00Z","sha256":"\#(sha)","impressions":10,"clicks":2,"skips":1}],"region":"cn-east"}}"#),
        ("launch-query", #"{"jsonrpc":"2.0","id":15,"method":"launch.query","params":{"app":"shop","platform":"ios","appVersion":"5.2.0","region":"cn-east","locale":"zh-CN","deviceId":"d-9f2","screen":{"width":1179,"height":2556},"launchType":"hot","backgroundSeconds":600,"cached":["\#(sha)"]}}"#),
        ("launch-prefetch", #"{"jsonrpc":"2.0","id":16,"method":"launch.prefetch","params":{"app":"shop","platform":"android","appVersion":"5.2","screen":{"width":1080,"height":1920},"horizonHours":48,"cached":[]}}"#),
        ("launch-report", #"{"jsonrpc":"2.0","id":17,"method":"launch.report","params":{"events":[{"eventId":"ev-1","type":"impression","campaignId":1,"deviceId":"d-9f2","sha256":"\#(sha)","at":"2027-01-01T08:00:00Z"},{"eventId":"ev-2","type":"skip","campaignId":1,"deviceId":"d-9f2"}]}}"#),
        ("launch-why", #"{"jsonrpc":"2.0","id":25,"method":"launch.why","params":{"app":"shop","platform":"ios","appVersion":"5.2.0","region":"cn-east","locale":"zh-CN","deviceId":"d-9f2","id":42}}"#),
        ("app-stats", #"{"jsonrpc":"2.0","id":22,"method":"app.stats","params":{"app":"shop","from":"2027-01-01T00:00:00Z","to":"2027-01-02T00:00:00+08:00","by":"hour"}}"#),
        ("launch-report-funnel", #"{"jsonrpc":"2.0","id":23,"method":"launch.report","params":{"events":[{"eventId":"ev-r","type":"request","deviceId":"d-9f2","app":"shop"},{"eventId":"ev-t","type":"timeout","deviceId":"d-9f2","app":"shop","campaignId":1,"at":"2027-01-01T08:00:00Z"}]}}"#),
        ("edge-report-apps", #"{"jsonrpc":"2.0","id":24,"method":"edge.report","params":{"edgeId":"edge-1","reportId":5,"counts":[],"apps":[{"app":"shop","hour":"2027-01-01T08:00:00Z","requests":5,"noAds":1,"timeouts":1,"failures":0,"shows":2}]}}"#),
        ("edge-status", #"{"jsonrpc":"2.0","id":18,"method":"edge.status","params":{}}"#),
        ("rpc-discover", #"{"jsonrpc":"2.0","id":19,"method":"rpc.discover"}"#),
        ("notification", #"{"jsonrpc":"2.0","method":"launch.report","params":{"events":[]}}"#),
        ("batch", #"[{"jsonrpc":"2.0","id":1,"method":"edge.status"},{"jsonrpc":"2.0","method":"edge.status"},{"jsonrpc":"2.0","id":"x","method":"nope"},7]"#),
        ("ids", #"{"jsonrpc":"2.0","id":1.50e0,"method":"campaign.get","params":{"id":1e0}}"#),
    ]

    /// The samples as parsed values.
    static let parsedSamples: [JSONValue] = samples.map { try! JSONParser.parse($0.json) }

    /// Values that break assumptions: extremes of every JSON type.
    static let nastyValues: [JSONValue] = [
        .null, true, false, 0, -1, 1.5, .number(JSONNumber(text: "-0")!), .number(JSONNumber(text: "1e400")!),
        .number(JSONNumber(text: "-1e-400")!), .number(JSONNumber(text: "9223372036854775808")!),
        .number(JSONNumber(text: "-9223372036854775809")!), .number(JSONNumber(text: "18446744073709551616")!),
        .number(JSONNumber(text: "123456789012345678901234567890.5E+3")!), 9_223_372_036_854_775_807, 2_147_483_648,
        16_385, 1_048_577, "", " ", "\u{0}", "😀", "é\u{301}", "\u{FEFF}", "../../../etc/passwd", "%2e%2e%2f",
        .string(String(repeating: "a", count: 5_000)), .string(String(repeating: "9", count: 400)), "NaN", "-Infinity",
        "2027-13-45T99:99:99Z", "0000-01-01T00:00:00Z", "9999-12-31T23:59:59.999999999Z", "1.2.3.4.5.6.7.8.9.10",
        [], [.null], .array(Array(repeating: 1, count: 300)), [:], ["__proto__": 1], ["id": ["id": ["id": 1]]],
    ]

    /// One input.
    public static func next(_ random: inout SeededRandom) -> [UInt8] {
        switch random.next() % 10 {
        case 0:
            return Array(samples[Int(random.next() % UInt64(samples.count))].json.utf8)
        case 1, 2, 3, 4:
            return mutatedRequest(&random).jsonBytes
        case 5:
            return randomValue(&random, depth: 0).jsonBytes
        case 6:
            return batch(&random).jsonBytes
        default:
            return mangle(mutatedRequest(&random).jsonBytes, &random)
        }
    }

    /// Every public method's name, and names that are almost theirs.
    static let methodNames = ["creative.upload", "campaign.create", "campaign.update", "campaign.get", "campaign.list",
                              "campaign.force", "campaign.unforce", "campaign.pause", "campaign.resume", "campaign.expire",
                              "campaign.delete", "edge.list", "campaign.stats", "app.stats", "change.list", "launch.explain", "sync.snapshot", "sync.changes", "creative.get",
                              "edge.ack", "edge.acks", "edge.report", "launch.query", "launch.prefetch", "launch.report", "launch.why", "edge.status",
                              "rpc.discover", "launch.query ", "Launch.query", "launch.query\u{0}", "édge.status", "launch", ""]

    /// A sample request with one to three of its parts changed, now and then sent to another method.
    public static func mutatedRequest(_ random: inout SeededRandom) -> JSONValue {
        var value = parsedSamples[Int(random.next() % UInt64(parsedSamples.count))]
        if random.next() % 4 == 0, case .object(let object) = value {
            let name = methodNames[Int(random.next() % UInt64(methodNames.count))]
            value = .object(JSONObject(members: object.map { $0.key == "method" ? (key: $0.key, value: .string(name)) : $0 }))
        }
        for _ in 0...(random.next() % 3) { value = mutate(value, &random, depth: 0) }
        return value
    }

    static func batch(_ random: inout SeededRandom) -> JSONValue {
        let count = Int(random.next() % 6)
        return .array((0..<count).map { _ in random.next() % 4 == 0 ? randomValue(&random, depth: 1) : mutatedRequest(&random) })
    }

    /// The value with one member or element somewhere in it replaced, removed or added.
    static func mutate(_ value: JSONValue, _ random: inout SeededRandom, depth: Int) -> JSONValue {
        switch value {
        case .object(let object) where !object.isEmpty && random.next() % 3 != 0:
            var members = Array(object)
            let index = Int(random.next() % UInt64(members.count))
            switch random.next() % 6 {
            case 0: members.remove(at: index)
            case 1: members.append((key: randomKey(&random), value: randomValue(&random, depth: depth + 1)))
            case 2: members[index].value = nastyValues[Int(random.next() % UInt64(nastyValues.count))]
            default: members[index].value = mutate(members[index].value, &random, depth: depth + 1)
            }
            return .object(JSONObject(members: members))
        case .array(var elements) where !elements.isEmpty && random.next() % 3 != 0:
            let index = Int(random.next() % UInt64(elements.count))
            elements[index] = mutate(elements[index], &random, depth: depth + 1)
            if random.next() % 4 == 0 { elements.append(elements[index]) }
            return .array(elements)
        default:
            return random.next() % 2 == 0 ? nastyValues[Int(random.next() % UInt64(nastyValues.count))] : randomValue(&random, depth: depth)
        }
    }

    static let keys = ["id", "jsonrpc", "method", "params", "app", "platform", "appVersion", "screen", "width", "height",
                       "sha256", "offset", "length", "cached", "events", "type", "campaignId", "creatives", "x", "", "é"]

    static func randomKey(_ random: inout SeededRandom) -> String {
        keys[Int(random.next() % UInt64(keys.count))]
    }

    /// Any JSON value, nested up to about 70 levels (beyond the parser's limit of 64, now and then).
    public static func randomValue(_ random: inout SeededRandom, depth: Int) -> JSONValue {
        let roll = random.next() % (depth > 70 ? 6 : 9)
        switch roll {
        case 0: return .null
        case 1: return .bool(random.next() % 2 == 0)
        case 2: return .number(JSONNumber(Int64(bitPattern: random.next()) >> Int64(random.next() % 64)))
        case 3:
            let mantissa = Int64(bitPattern: random.next()) % 1_000_000
            return .number(JSONNumber(text: "\(mantissa).\(random.next() % 1000)e\(Int(random.next() % 700) - 350)")!)
        case 4: return .string(randomString(&random))
        case 5: return nastyValues[Int(random.next() % UInt64(nastyValues.count))]
        case 6:
            // Now and then a narrow, deep chain.
            if random.next() % 3 == 0 { return .array([randomValue(&random, depth: depth + 1)]) }
            return .array((0..<random.next() % 4).map { _ in randomValue(&random, depth: depth + 1) })
        default:
            var members: [JSONObject.Member] = []
            var seen = Set<String>()
            for _ in 0..<(random.next() % 4) {
                let key = random.next() % 2 == 0 ? randomKey(&random) : randomString(&random)
                if seen.insert(key).inserted { members.append((key: key, value: randomValue(&random, depth: depth + 1))) }
            }
            return .object(JSONObject(members: members))
        }
    }

    static func randomString(_ random: inout SeededRandom) -> String {
        var scalars = String.UnicodeScalarView()
        for _ in 0..<(random.next() % 12) {
            let ranges: [ClosedRange<UInt32>] = [0...0x1F, 0x20...0x7E, 0x80...0x7FF, 0x800...0xD7FF, 0xE000...0xFFFF, 0x10000...0x10FFFF]
            let range = ranges[Int(random.next() % UInt64(ranges.count))]
            if let scalar = Unicode.Scalar(range.lowerBound + UInt32(random.next() % UInt64(range.count))) { scalars.append(scalar) }
        }
        return String(scalars)
    }

    /// Bytes that are no longer (or barely) JSON: invalid UTF-8, lone surrogates, cut short, stray or doubled
    /// bytes, a byte-order mark, nesting too deep.
    public static func mangle(_ bytes: [UInt8], _ random: inout SeededRandom) -> [UInt8] {
        var bytes = bytes
        let at = bytes.isEmpty ? 0 : Int(random.next() % UInt64(bytes.count))
        switch random.next() % 9 {
        case 0: bytes.removeSubrange(at...)
        case 1: if !bytes.isEmpty { bytes[at] ^= UInt8(1 << (random.next() % 8)) }
        case 2:
            let invalid: [[UInt8]] = [[0xFF], [0xC0, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xE2, 0x82], [0x80], [0xF8, 0x88, 0x80, 0x80, 0x80]]
            bytes.insert(contentsOf: invalid[Int(random.next() % UInt64(invalid.count))], at: at)
        case 3:
            let escapes = [#"\ud800"#, #"\udc00\ud800"#, #"\u00"#, #"\x41"#, #"\'"#, #"\u0000"#, #"\/"#]
            bytes.insert(contentsOf: Array(escapes[Int(random.next() % UInt64(escapes.count))].utf8), at: at)
        case 4: bytes.insert(contentsOf: [0xEF, 0xBB, 0xBF], at: 0)
        case 5: bytes.insert(contentsOf: bytes[at...].prefix(Int(random.next() % 32)), at: at)
        case 6:
            let depth = 60 + Int(random.next() % 20)
            bytes = Array(repeating: UInt8(ascii: "["), count: depth) + bytes + Array(repeating: UInt8(ascii: "]"), count: depth)
        case 7: bytes.append(contentsOf: Array([" ", "}", ",", "0", "\u{0}", "/*"][Int(random.next() % 6)].utf8))
        default: if !bytes.isEmpty { bytes[at] = [UInt8(ascii: "\""), UInt8(ascii: "'"), 0, UInt8(ascii: "\\")][Int(random.next() % 4)] }
        }
        return bytes
    }
}
