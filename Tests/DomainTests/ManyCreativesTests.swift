import Foundation
import LaunchAdDomain
import Testing

/// The seeds' case: one campaign with 17 variants in each of three screen shapes (51 creatives), and the limit of 64.
@Suite("A campaign with many creatives", .timeLimit(.minutes(1)))
struct ManyCreativesTests {
    static let now = DecisionEngineTests.now
    /// A tall phone, a 16:9 phone and a 3:4 tablet.
    static let shapes = [(width: 1179, height: 2556), (width: 1080, height: 1920), (width: 1536, height: 2048)]
    static let variants = 17

    /// A made-up sha256, distinct in its first 64 bits (what a device's history keeps of a variant).
    static func sha256(_ number: Int) -> String { String(format: "%016x", number) + String(repeating: "a", count: 48) }

    /// Creative `variant` of shape `shape`.
    static func creative(shape: Int, variant: Int) -> CreativeFacts {
        CreativeFacts(sha256: sha256(shape * 1000 + variant + 1), contentType: "image/png",
                      width: shapes[shape].width, height: shapes[shape].height, size: 1000)
    }

    static let all = (0..<shapes.count).flatMap { shape in (0..<variants).map { creative(shape: shape, variant: $0) } }

    @Test("17 variants in three shapes, and 64 creatives, are accepted; 65 are refused naming the field")
    func validation() throws {
        func fields(_ count: Int) -> CampaignFields {
            let refs = (0..<count).map { CreativeRef(sha256: Self.sha256($0 + 1)) }
            return CampaignFields(name: "Seeds", app: "shop", startsAt: Self.now.adding(seconds: 60), endsAt: Self.now.adding(seconds: 3600),
                                  creatives: refs)
        }
        #expect(Self.all.count == 51)
        let seeds = try CampaignRules.create(CampaignFields(name: "Seeds", app: "shop", startsAt: Self.now.adding(seconds: 60),
                                                            endsAt: Self.now.adding(seconds: 3600),
                                                            creatives: Self.all.map { CreativeRef(sha256: $0.sha256) }),
                                             id: 1, now: Self.now, creativeExists: { _ in true })
        #expect(seeds.creatives.count == 51)
        #expect(try CampaignRules.create(fields(64), id: 2, now: Self.now, creativeExists: { _ in true }).creatives.count == 64)
        #expect(CampaignRules.maxCreatives == 64)
        #expect { try CampaignRules.create(fields(65), id: 3, now: Self.now, creativeExists: { _ in true }) } throws: { error in
            (error as? FieldError)?.field == "creatives"
        }
    }

    @Test("each screen is answered only from its own shape's 17 variants, each shown once a round; prefetch lists exactly those 17")
    func rotationByShape() throws {
        let campaign = DecisionEngineTests.campaign(1, creatives: Self.all)
        let held = Dictionary(uniqueKeysWithValues: Self.all.map { ($0.sha256, $0) })
        let index = try #require(DecisionEngine.index([campaign], creatives: held, preparer: .json)["shop"])
        let candidate = try #require(index.candidates.first)
        let campaignVariants = Self.all.map { DeviceView.variantKey($0.sha256) }
        // A screen a few pixels off each shape (the nearest-shape rule's tolerance) and the exact shape.
        let screens = Self.shapes.enumerated().flatMap { shape, size in
            [(shape, (size.width, size.height)), (shape, (size.width - 9, size.height - 24))]
        }
        for (shape, screen) in screens {
            let own = Set((0..<Self.variants).map { Self.creative(shape: shape, variant: $0).sha256 })
            #expect(Set(DecisionEngine.creatives(of: candidate, for: (width: screen.0, height: screen.1)).map(\.facts.sha256)) == own)
            for device in 0..<5 {
                let request = DecisionEngineTests.request(device: "d-\(shape)-\(device)", screen: screen)
                var view = DeviceView.unknown
                var shown: [String] = []
                for _ in 0..<(3 * Self.variants) {
                    let decision = DecisionEngine.decide(request, index: index, device: view, now: Self.now)
                    let chosen = try #require(decision.held)
                    shown.append(chosen.facts.sha256)
                    let next = DeviceView.rotated(campaigns: view.seenCampaigns, variants: view.variantKeys, after: 1, variant: chosen.variantKey,
                                                  group: { DecisionEngine.rotationGroup(of: campaign, in: index) },
                                                  campaignVariants: { campaignVariants })
                    view = DeviceView.make(seenCampaigns: next.campaigns, variantKeys: next.variants, rotation: view.rotation + 1)
                }
                #expect(shown.allSatisfy(own.contains), "screen \(screen) was shown another shape's creative")
                for round in stride(from: 0, to: shown.count, by: Self.variants) {
                    #expect(Set(shown[round..<round + Self.variants]) == own, "screen \(screen), device \(device): round at \(round)")
                }
                #expect(zip(shown, shown.dropFirst()).allSatisfy { $0 != $1 }, "a variant twice in a row")
            }
        }
        // A client holding one creative of its shape is shown that one (the rule that prefers what the client holds).
        let cachedOne = Self.creative(shape: 1, variant: 9).sha256
        let request = DecisionEngineTests.request(device: "d-cached", screen: (1080, 1920), cached: [cachedOne])
        #expect(DecisionEngine.decide(request, index: index, device: .unknown, now: Self.now).held?.facts.sha256 == cachedOne)
    }
}
