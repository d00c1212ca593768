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
