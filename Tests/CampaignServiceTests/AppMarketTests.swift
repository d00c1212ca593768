import Foundation
import JSONRPC
import LaunchAdAPI
import LaunchAdDomain
import LaunchAdTesting
import Testing
import ZMQRPC

/// Apps as campaignd knows them and the rules of their markets, on both engines (in campaignd's suite, on its
/// cluster).
extension CampaignServiceTests {
    /// Whether `error` is a -32602 naming `field`.
    static func refuses(_ error: any Error, field: String) -> Bool {
        guard let error = error as? JSONRPCError else { return false }
        return error.code == -32602 && error.data?["field"] == .string(field)
    }

    /// The broken rules' fields a market refusal lists, in order, when `error` is one for `market` shaped as every
    /// -32602 is (`data.field` and `data.reason` the first broken rule's, the message "Invalid params: FIELD: REASON…").
    static func breaches(_ error: any Error, market: Market) -> [String]? {
        guard let error = error as? JSONRPCError, error.code == -32602, error.data?["market"] == .string(market.rawValue),
              case .array(let breaches)? = error.data?["breaches"], case .string(let field)? = error.data?["field"],
              case .string(let reason)? = error.data?["reason"], error.message.hasPrefix("Invalid params: \(field): \(reason)"),
              let rule = MarketRules.rules(of: market).first(where: { $0.field.stringValue == field }),
              reason.hasPrefix(rule.rule + " in the \(market.rawValue) market"), breaches.first?["field"] == .string(field) else { return nil }
        return breaches.map { breach in
            // Each names its market, rule and source as the table has them.
            guard case .string(let field)? = breach["field"], breach["market"] == .string(market.rawValue),
                  let rule = MarketRules.rules(of: market).first(where: { $0.field.stringValue == field }),
                  breach["rule"] == .string(rule.rule), breach["source"] == .string(rule.source) else { return "?" }
            return field
        }
    }

    @Test("app.set, app.get and app.list: a patch over the defaults, kept with who set it; a bad app id, market, time zone or logo refused naming the field", arguments: StoreEngine.allCases)
    func appsRoundTrip(engine: StoreEngine) async throws {
        try await withCampaignService(engine: engine) { fixture in
            let admin = try fixture.admin()
            let never = try await admin.call(AdminAPI.appGet, AppParams(app: "shop"))
            #expect(never == AppResult(app: AppSettings(app: "shop", market: .global, timezone: "UTC"), changes: []))
            #expect(try await admin.call(AdminAPI.appList, NoParams()).apps.isEmpty)

            let set = try await admin.call(AdminAPI.appSet, AppPatch(app: "shop", market: .cn, timezone: "Asia/Shanghai"))
            #expect(set.app.market == .cn && set.app.timezone == "Asia/Shanghai" && set.app.logo == nil && set.app.updatedAt != nil)
            #expect(set.breaking.isEmpty)
            // A patch: the market stays.
            let logo = try await fixture.uploadPNG(admin, width: 600, height: 200, seed: 7)
            let moved = try await admin.call(AdminAPI.appSet, AppPatch(app: "shop", timezone: "Europe/Berlin", logo: logo)).app
            #expect(moved.market == .cn && moved.timezone == "Europe/Berlin" && moved.logo == logo)
            let got = try await admin.call(AdminAPI.appGet, AppParams(app: "shop"))
            #expect(got.app == moved)
            #expect(got.changes.map(\.after) == [moved, set.app] && got.changes.map(\.before) == [set.app, nil])
            #expect(got.changes.allSatisfy { $0.actor == "local" })
            let unlogoed = try await admin.call(AdminAPI.appSet, AppPatch(app: "shop", logo: "")).app
            #expect(unlogoed.logo == nil)
            // The same patch again (a retried call) changes nothing and logs nothing.
            #expect(try await admin.call(AdminAPI.appSet, AppPatch(app: "shop", logo: "")).app == unlogoed)
            #expect(try await admin.call(AdminAPI.appSet, AppPatch(app: "shop", market: .cn)).app == unlogoed)
            // An app's first set must give its market; after that, a patch.
            await #expect { try await admin.call(AdminAPI.appSet, AppPatch(app: "news", timezone: "Asia/Kolkata")) } throws: {
                Self.refuses($0, field: "market")
            }
            #expect(try await admin.call(AdminAPI.appGet, AppParams(app: "news")).changes.isEmpty)
            _ = try await admin.call(AdminAPI.appSet, AppPatch(app: "news", market: .global))
            #expect(try await admin.call(AdminAPI.appList, NoParams()).apps.map { "\($0.app) \($0.market)" } == ["news global", "shop cn"])

            let refused: [(JSONValue, String)] = [
                (["app": "Shop!", "market": "cn"], "app"),
                (["app": "", "market": "cn"], "app"),
                (["app": "shop", "market": "us"], "market"),
                (["app": "shop", "market": "CN"], "market"),
                (["app": "shop", "timezone": "Mars/Olympus_Mons"], "timezone"),
                (["app": "shop", "timezone": "GMT+8"], "timezone"),
                (["app": "shop", "timezone": "CST"], "timezone"),
                (["app": "shop", "timezone": ""], "timezone"),
                (["app": "shop", "logo": "nope"], "logo"),
                (["app": "shop", "logo": .string(String(repeating: "a", count: 64))], "logo"),
                (["app": "shop", "colour": "red"], "colour"),
            ]
            for (params, field) in refused {
                do {
                    _ = try await admin.call("app.set", params: params)
                    Issue.record("app.set took \(params)")
                } catch {
                    #expect(Self.refuses(error, field: field), "\(params): \(error)")
                }
            }
            await #expect { try await admin.call(AdminAPI.appGet, AppParams(app: "Shop")) } throws: { Self.refuses($0, field: "app") }
            // Nothing refused was kept.
            #expect(try await admin.call(AdminAPI.appGet, AppParams(app: "shop")).changes.count == 3)
            await admin.close()
        }
    }

    @Test("each market's rules refused on create and on update (one that changes only the rule's field too), every broken rule listed; compliant campaigns accepted", arguments: StoreEngine.allCases)
    func marketRulesOnWrites(engine: StoreEngine) async throws {
        try await withCampaignService(engine: engine) { fixture in
            let admin = try fixture.admin()
            let creative = try await fixture.uploadPNG(admin, seed: 1)
            _ = try await admin.call(AdminAPI.appSet, AppPatch(app: "cn-app", market: .cn))
            _ = try await admin.call(AdminAPI.appSet, AppPatch(app: "eu-app", market: .eu))

            // cn: one rule at a time, then all three at once.
            var fields = CampaignFixture.fields(app: "cn-app", creative: creative)
            let cases: [(String, (inout CampaignFields) -> Void)] = [
                ("skippable", { $0.skippable = false }), ("skipAfter", { $0.skipAfter = 3 }), ("clickArea", { $0.clickArea = .full }),
            ]
            for (field, breakIt) in cases {
                var broken = fields
                breakIt(&broken)
                await #expect { try await admin.call(AdminAPI.campaignCreate, broken) } throws: {
                    Self.refuses($0, field: field) && Self.breaches($0, market: .cn) == [field]
                }
            }
            // (skipAfter applies only to a skippable campaign: the campaign's own rules refuse it with skippable false.)
            fields.skipAfter = 2
            fields.clickArea = .full
            await #expect { try await admin.call(AdminAPI.campaignCreate, fields) } throws: {
                Self.breaches($0, market: .cn) == ["skipAfter", "clickArea"]
                    && ($0 as? JSONRPCError)?.message.contains("SAMR") == true && ($0 as? JSONRPCError)?.message.contains("MIIT") == true
            }
            fields.skipAfter = nil
            fields.skippable = false
            await #expect { try await admin.call(AdminAPI.campaignCreate, fields) } throws: { Self.breaches($0, market: .cn) == ["skippable", "clickArea"] }
            fields.skippable = true
            fields.skipAfter = 0
            fields.clickArea = .button
            #expect(try await admin.call(AdminAPI.campaignCreate, fields).campaign.skipAfter == 0)
            let compliant = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(app: "cn-app", creative: creative)).campaign
            #expect(compliant.skippable && compliant.skipAfter == nil && compliant.clickArea == nil)
            // An update is checked merged: changing only the field the rule is about is refused.
            for (field, breakIt) in cases {
                var patch = CampaignFields()
                breakIt(&patch)
                await #expect { try await admin.call(AdminAPI.campaignUpdate, CampaignUpdateParams(id: compliant.id, fields: patch)) } throws: {
                    Self.refuses($0, field: field) && Self.breaches($0, market: .cn) == [field]
                }
            }
            #expect(try await admin.call(AdminAPI.campaignGet, CampaignID(id: compliant.id)).campaign.version == 1)
            let raised = try await admin.call(AdminAPI.campaignUpdate, CampaignUpdateParams(id: compliant.id, fields: CampaignFields(priority: 70)))
            #expect(raised.campaign.version == 2 && raised.campaign.priority == 70)

            // eu: the advertiser.
            let unsaid = CampaignFixture.fields(app: "eu-app", creative: creative)
            await #expect { try await admin.call(AdminAPI.campaignCreate, unsaid) } throws: {
                Self.refuses($0, field: "advertiser") && Self.breaches($0, market: .eu) == ["advertiser"]
            }
            var said = unsaid
            said.advertiser = "Example GmbH"
            // What cn refuses, eu takes.
            said.clickArea = .full
            said.skippable = false
            #expect(try await admin.call(AdminAPI.campaignCreate, said).campaign.advertiser == "Example GmbH")
            // An update whose only change is the app, moving a campaign into cn's rules, is checked in the new app's market.
            var loose = CampaignFixture.fields(app: "loose-app", creative: creative)
            loose.clickArea = .full
            let moving = try await admin.call(AdminAPI.campaignCreate, loose).campaign
            await #expect { try await admin.call(AdminAPI.campaignUpdate, CampaignUpdateParams(id: moving.id, fields: CampaignFields(app: "cn-app"))) } throws: {
                Self.refuses($0, field: "clickArea") && Self.breaches($0, market: .cn) == ["clickArea"]
            }
            #expect(try await admin.call(AdminAPI.campaignGet, CampaignID(id: moving.id)).campaign == moving)
            // global: no rule.
            var anything = CampaignFixture.fields(app: "shop", creative: creative)
            anything.skippable = false
            anything.clickArea = .full
            let global = try await admin.call(AdminAPI.campaignCreate, anything).campaign

            // A campaign accepted under global, its app then moved to eu: any update of it is refused until it keeps the rule.
            _ = try await admin.call(AdminAPI.appSet, AppPatch(app: "shop", market: .eu))
            await #expect { try await admin.call(AdminAPI.campaignUpdate, CampaignUpdateParams(id: global.id, fields: CampaignFields(priority: 60))) } throws: {
                Self.breaches($0, market: .eu) == ["advertiser"]
            }
            let fixed = try await admin.call(AdminAPI.campaignUpdate, CampaignUpdateParams(id: global.id, fields: CampaignFields(advertiser: "Shop Ltd")))
            #expect(fixed.campaign.advertiser == "Shop Ltd" && fixed.campaign.version == 2)
            // A breaking campaign can always be taken off the air, but resuming it is refused like an update.
            _ = try await admin.call(AdminAPI.appSet, AppPatch(app: "shop", market: .cn))
            #expect(try await admin.call(AdminAPI.campaignPause, CampaignID(id: global.id)).campaign.state == .paused)
            await #expect { try await admin.call(AdminAPI.campaignResume, CampaignID(id: global.id)) } throws: {
                Self.refuses($0, field: "skippable") && Self.breaches($0, market: .cn) == ["skippable", "clickArea"]
            }
            #expect(try await admin.call(AdminAPI.campaignGet, CampaignID(id: global.id)).campaign.state == .paused)
            // Forcing a live campaign that breaks its market's rules is refused too; unforcing never is.
            var wide = CampaignFixture.fields(app: "late", creative: creative)
            wide.clickArea = .full
            let live = try await admin.call(AdminAPI.campaignCreate, wide).campaign
            _ = try await admin.call(AdminAPI.appSet, AppPatch(app: "late", market: .cn))
            await #expect { try await admin.call(AdminAPI.campaignForce, CampaignID(id: live.id)) } throws: {
                Self.refuses($0, field: "clickArea") && Self.breaches($0, market: .cn) == ["clickArea"]
            }
            #expect(try await admin.call(AdminAPI.campaignGet, CampaignID(id: live.id)).campaign == live)
            #expect(try await admin.call(AdminAPI.campaignUnforce, CampaignID(id: live.id)).campaign.forced == false)
            await admin.close()
        }
    }

    @Test("setting an app's market answers exactly its live, scheduled and paused campaigns that break the market's rules, and changes none", arguments: StoreEngine.allCases)
    func marketChangeListsBreakingCampaigns(engine: StoreEngine) async throws {
        try await withCampaignService(engine: engine) { fixture in
            let admin = try fixture.admin()
            let creative = try await fixture.uploadPNG(admin, seed: 1)
            func create(_ name: String, app: String = "shop", startIn: Double = -1, _ change: (inout CampaignFields) -> Void = { _ in }) async throws -> Campaign {
                var fields = CampaignFixture.fields(name: name, app: app, creative: creative, startIn: startIn)
                change(&fields)
                return try await admin.call(AdminAPI.campaignCreate, fields).campaign
            }
            let fullClick = try await create("full click") { $0.clickArea = .full }
            let unskippable = try await create("unskippable", startIn: 600) { $0.skippable = false; $0.advertiser = "Ads Inc" }
            let late = try await create("late skip") { $0.skipAfter = 2; $0.clickArea = .full; $0.advertiser = "Ads Inc" }
            _ = try await create("fine") { $0.advertiser = "Ads Inc" }
            let paused = try await create("paused") { $0.clickArea = .full }
            _ = try await admin.call(AdminAPI.campaignPause, CampaignID(id: paused.id))
            let expired = try await create("expired") { $0.skippable = false }
            _ = try await admin.call(AdminAPI.campaignExpire, CampaignID(id: expired.id))
            _ = try await create("other app", app: "news") { $0.clickArea = .full }
            let seq = try await admin.call(AdminAPI.edgeList, NoParams()).seq

            let cn = try await admin.call(AdminAPI.appSet, AppPatch(app: "shop", market: .cn))
            #expect(cn.breaking.map(\.id) == [fullClick.id, unskippable.id, late.id, paused.id])
            #expect(cn.breaking.map { $0.breaches.map(\.field) } == [["clickArea"], ["skippable"], ["skipAfter", "clickArea"], ["clickArea"]])
            #expect(cn.breaking.map(\.state) == [.live, .scheduled, .live, .paused] && cn.breaking[0].name == "full click")
            let cnRules = Dictionary(uniqueKeysWithValues: MarketRules.rules(of: .cn).map { ($0.field.stringValue, $0.breach) })
            #expect(cn.breaking.allSatisfy { $0.breaches.allSatisfy { cnRules[$0.field] == $0 } })
            // Nothing changed: no change was logged, every campaign as it was.
            #expect(try await admin.call(AdminAPI.edgeList, NoParams()).seq == seq)
            #expect(try await admin.call(AdminAPI.campaignGet, CampaignID(id: fullClick.id)).campaign == fullClick)

            let eu = try await admin.call(AdminAPI.appSet, AppPatch(app: "shop", market: .eu))
            #expect(eu.breaking.map(\.id) == [fullClick.id, paused.id])
            #expect(eu.breaking.first?.breaches == [MarketRuleBreach(field: "advertiser", market: .eu, rule: MarketRules.rules(of: .eu)[0].rule,
                                                                     source: MarketRules.rules(of: .eu)[0].source)])
            #expect(try await admin.call(AdminAPI.appSet, AppPatch(app: "shop", market: .global)).breaking.isEmpty)
            await admin.close()
        }
    }
}
