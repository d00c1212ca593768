import LaunchAdDomain

/// The campaigns of a scale run (`adload seed`, `bench/scale.sh`, query-microbench's scale measures): campaign `i`
/// of one app, with the targeting of a large app's mix (a third by platform, a fifth by region, a seventh by version
/// range, each independently of the others) and priorities from 0 to 100 and weights from 1 to 1,000 spread by a
/// hash of `i`. The same `i` gives the same campaign in every run.
public enum ScaleCampaigns {
    public static func targeting(_ i: Int) -> Targeting {
        var targeting = Targeting()
        if i % 3 == 0 { targeting.platforms = [(i / 3) % 2 == 0 ? "ios" : "android"] }
        if i % 5 == 0 {
            let regions = ["cn-east", "cn-north", "cn-south", "cn-west"]
            targeting.regions = (i / 5) % 3 == 0 ? [regions[(i / 5) % 4], regions[(i / 5 + 1) % 4]] : [regions[(i / 5) % 4]]
        }
        if i % 7 == 0 {
            let ranges = [VersionRange(min: "5.0"), VersionRange(min: "4.8", max: "5.2"), VersionRange(max: "5.1"), VersionRange(min: "5.2")]
            targeting.appVersions = ranges[(i / 7) % ranges.count]
        }
        return targeting
    }

    public static func priority(_ i: Int) -> Int { Int(spread(i) % 101) }

    public static func weight(_ i: Int) -> Int { Int((spread(i) >> 32) % 1000) + 1 }

    private static func spread(_ i: Int) -> UInt64 {
        var z = UInt64(i) &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
