import Foundation
import LaunchAdDomain
import Testing

@Suite("The markets' rules and an app's settings", .timeLimit(.minutes(1)))
struct MarketRulesTests {
    /// A campaign keeping every rule of every market.
    static let compliant = Campaign(id: 1, name: "c", app: "shop", startsAt: Timestamp(milliseconds: 0), endsAt: Timestamp(milliseconds: 1),
                                    priority: 50, weight: 100, forced: false, countdown: 3, skippable: true, skipAfter: nil, launchTypes: [.cold],
                                    minBackgroundSeconds: nil, jump: .none, creatives: [], targeting: .everyone, frequencyCap: nil, state: .live,
                                    version: 1, createdAt: Timestamp(milliseconds: 0), updatedAt: Timestamp(milliseconds: 0))

    @Test("each rule breaks on its own field alone, in its own market alone; global has none; absent values keep cn's rules")
    func eachRuleAlone() {
        var withAdvertiser = Self.compliant
        withAdvertiser.advertiser = "Ads Inc"
        for market in Market.allCases { #expect(MarketRules.breaches(of: withAdvertiser, in: market).isEmpty, "\(market)") }
        #expect(MarketRules.rules(of: .global).isEmpty)
        let breakers: [(String, (inout Campaign) -> Void)] = [
            ("skippable", { $0.skippable = false }), ("skipAfter", { $0.skipAfter = 1 }), ("clickArea", { $0.clickArea = .full }),
            ("advertiser", { $0.advertiser = nil }),
        ]
        for (field, breakIt) in breakers {
            var campaign = withAdvertiser
            breakIt(&campaign)
            let broken = Market.allCases.flatMap { MarketRules.breaches(of: campaign, in: $0) }
            #expect(broken.map(\.field) == [field], "\(field)")
        }
        var explicit = withAdvertiser
        explicit.skipAfter = 0
        explicit.clickArea = .button
        #expect(MarketRules.breaches(of: explicit, in: .cn).isEmpty)
        // The refusal names every broken rule.
        var all = Self.compliant
        all.skipAfter = 2
        all.clickArea = .full
        #expect { try MarketRules.check(all, in: .cn) } throws: { error in
            let refusal = error as? MarketRefusal
            return refusal?.breaches.map(\.field) == ["skipAfter", "clickArea"] && refusal?.market == .cn
                && refusal?.description.contains("SAMR") == true && refusal?.description.contains("MIIT") == true
        }
    }

    @Test("time zones: names of the tz database only, never an abbreviation or an offset")
    func timeZones() throws {
        // Foundation's own list on Linux leaves out Asia/Kolkata, Europe/Nicosia and Etc/UTC: names of the tz database all the same.
        for name in ["UTC", "Asia/Shanghai", "Europe/Berlin", "America/Argentina/Buenos_Aires", "Asia/Kolkata", "Asia/Calcutta", "Europe/Nicosia",
                     "Etc/UTC"] {
            #expect(AppSettings.isKnownTimeZone(name), "\(name)")
        }
        for name in ["", "GMT+8", "CST", "+08:00", "Mars/Olympus_Mons", "asia/shanghai", "Asia/Shanghai ", "Asia/", "Asia", "/Asia/Shanghai",
                     "Asia//Shanghai", "../etc/passwd", "Asia/../Asia/Shanghai", "America/Argentina", "posix/Asia/Shanghai", "Asia/Shanghai/",
                     String(repeating: "A", count: 65)] {
            #expect(!AppSettings.isKnownTimeZone(name), "\(name)")
        }
        let app = AppSettings(app: "shop")
        #expect(try app.merging(AppPatch(app: "shop", market: .eu)) == AppSettings(app: "shop", market: .eu))
        #expect { try app.merging(AppPatch(app: "shop", timezone: "GMT+8")) } throws: { ($0 as? FieldError)?.field == "timezone" }
        #expect { try app.merging(AppPatch(app: "shop", logo: "LOGO")) } throws: { ($0 as? FieldError)?.field == "logo" }
        let sha = String(repeating: "a", count: 64)
        let withLogo = try app.merging(AppPatch(app: "shop", logo: sha))
        let removed = try withLogo.merging(AppPatch(app: "shop", logo: ""))
        #expect(withLogo.logo == sha && removed.logo == nil)
    }
}
