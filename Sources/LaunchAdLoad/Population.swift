import SeededRandomness

/// Picks one of several values by integer weights.
struct WeightedChoice<Value: Sendable>: Sendable {
    private let values: [Value]
    private let cumulative: [Int]

    init(_ pairs: [(Value, Int)]) {
        precondition(!pairs.isEmpty && pairs.allSatisfy { $0.1 > 0 })
        values = pairs.map(\.0)
        var total = 0
        cumulative = pairs.map { total += $0.1; return total }
    }

    func pick(_ random: inout SeededRandom) -> Value {
        let point = random.index(cumulative.last!)
        var low = 0
        while cumulative[low] <= point { low += 1 }
        return values[low]
    }
}

/// One simulated phone: what it sends in every launch query.
public struct Device: Sendable, Hashable, Codable {
    public var deviceId: String
    public var app: String
    public var platform: String
    public var appVersion: String
    public var region: String
    public var locale: String
    public var width: Int
    public var height: Int
}

/// The phones a run simulates: a realistic mix of platforms, app versions, screens, regions and locales, the same
/// for the same seed. Device ids are `d-0` ... `d-(N-1)`, as the reference load client of the benchmarks names them.
public struct Population: Sendable {
    public let devices: [Device]

    public init(devices count: Int, apps: [String], seed: UInt64) {
        precondition(count > 0 && !apps.isEmpty)
        var random = SeededRandom(seed: seed)
        let platforms = WeightedChoice([("ios", 45), ("android", 55)])
        let iosVersions = WeightedChoice([("5.2.0", 50), ("5.1.3", 25), ("5.0.1", 15), ("4.9.8", 10)])
        let androidVersions = WeightedChoice([("5.2.1", 40), ("5.1.0", 30), ("4.8.0", 20), ("4.2.7", 10)])
        let iosScreens = WeightedChoice([((1179, 2556), 35), ((1170, 2532), 25), ((1290, 2796), 20), ((750, 1334), 10), ((1242, 2208), 10)])
        let androidScreens = WeightedChoice([((1080, 2400), 40), ((1080, 1920), 25), ((1440, 3200), 15), ((720, 1600), 10), ((1080, 2340), 10)])
        let regions = WeightedChoice([("cn-east", 40), ("cn-north", 30), ("cn-south", 20), ("cn-west", 10)])
        let locales = WeightedChoice([("zh-CN", 80), ("en-US", 12), ("zh-TW", 8)])
        devices = (0..<count).map { index in
            let platform = platforms.pick(&random)
            let ios = platform == "ios"
            let screen = ios ? iosScreens.pick(&random) : androidScreens.pick(&random)
            return Device(deviceId: "d-\(index)", app: apps[random.index(apps.count)], platform: platform,
                          appVersion: ios ? iosVersions.pick(&random) : androidVersions.pick(&random),
                          region: regions.pick(&random), locale: locales.pick(&random), width: screen.0, height: screen.1)
        }
    }
}

/// Which methods a run sends, by share in percent: `query=90,prefetch=5,report=5`.
public struct RequestMix: Sendable, Equatable, CustomStringConvertible {
    public var query: Int
    public var prefetch: Int
    public var report: Int

    public init(query: Int = 100, prefetch: Int = 0, report: Int = 0) {
        self.query = query
        self.prefetch = prefetch
        self.report = report
    }

    /// Parses `query=90,prefetch=5,report=5` (names may be omitted; shares must add up to 100).
    public init(parsing text: String) throws(LoadConfigurationError) {
        var mix = RequestMix(query: 0)
        var seen = Set<String>()
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let pair = part.split(separator: "=", maxSplits: 1).map(String.init)
            guard pair.count == 2, let share = Int(pair[1]), (0...100).contains(share) else {
                throw .invalid("--mix", "expected NAME=PERCENT pairs such as query=90,report=10, got \"\(part)\"")
            }
            guard seen.insert(pair[0]).inserted else { throw .invalid("--mix", "\(pair[0]) is named twice") }
            switch pair[0] {
            case "query": mix.query = share
            case "prefetch": mix.prefetch = share
            case "report": mix.report = share
            default: throw .invalid("--mix", "unknown method \"\(pair[0])\" (query, prefetch or report)")
            }
        }
        guard mix.query + mix.prefetch + mix.report == 100 else {
            throw .invalid("--mix", "shares add up to \(mix.query + mix.prefetch + mix.report), not 100")
        }
        guard mix.query > 0 || mix.report == 0 else {
            throw .invalid("--mix", "report needs some query share: a report names a campaign a query answered")
        }
        self = mix
    }

    public var description: String { "query=\(query),prefetch=\(prefetch),report=\(report)" }
}

/// A configuration that cannot run, with the flag at fault.
public enum LoadConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    case invalid(String, String)

    public var description: String {
        switch self {
        case let .invalid(flag, reason): "\(flag): \(reason)"
        }
    }
}
