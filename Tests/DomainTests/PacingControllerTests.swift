import LaunchAdDomain
import Testing

/// The controller alone, tick by tick, on traffic made up to corner it: a restarted leader, a share held low with no
/// traffic, a small share on a large campaign, and traffic that swings at every tick.
@Suite("Pacing controller", .timeLimit(.minutes(1)))
struct PacingControllerTests {
    static let start = Timestamp(rfc3339: "2026-12-07T00:00:00Z")!
    static let day = PacingWindow(start: start, end: start.adding(seconds: 86_400))

    /// Ticks every `step` seconds (10) from `from` for `seconds`, the campaign offered `rate(second)` impressions a second at a share of
    /// 1 and delivering that times the share the edges hold (reported at once); answers the shares published, the
    /// delivered count and the memory.
    static func run(goal: Int, pacing: CampaignPacing = .even, from: Int = 0, seconds: Int, published: Double = 1, delivered: Int = 0,
                    memory: PacingMemory? = nil, controller: PacingController = PacingController(), step: Int = 10,
                    rate: (Int) -> Double) -> (shares: [(second: Int, share: Double)], delivered: Int, memory: PacingMemory?) {
        var memory = memory, share = published, delivered = Double(delivered)
        var shares: [(second: Int, share: Double)] = []
        for second in stride(from: from, to: from + seconds, by: step) {
            let input = PacingInput(goal: goal, pacing: pacing, window: day, delivered: Int(delivered), now: start.adding(seconds: Double(second)),
                                    published: share)
            let (outcome, kept) = controller.tick(input, memory: memory)
            memory = kept
            if outcome.share != share { shares.append((second, outcome.share)) }
            share = outcome.share
            delivered += rate(second) * share * Double(step)
        }
        return (shares, Int(delivered), memory)
    }

    @Test("a leader with no memory of a campaign (restarted, or new) starts from the published share and measures before it raises it")
    func restartKeepsTheShare() {
        // Mid-day, 0.2 published for traffic at 5 times the even rate: a restart must not serve everyone meanwhile.
        let goal = 86_400
        let (shares, _, memory) = Self.run(goal: goal, from: 43_200, seconds: 600, published: 0.2, delivered: goal / 2) { _ in 5 }
        #expect(shares.allSatisfy { $0.share <= 0.25 }, "\(shares)")
        #expect(memory?.offeredRate.map { abs($0 - 5) < 0.5 } == true, "\(String(describing: memory?.offeredRate))")
    }

    @Test("a measure that counted nothing does not lift a low share before 15 minutes; after them, with nothing at all, it does")
    func nothingMeasuredHoldsTheShare() {
        let (early, _, _) = Self.run(goal: 86_400, from: 43_200, seconds: 890, published: 0.05, delivered: 43_200) { _ in 0 }
        #expect(early.isEmpty, "\(early)")
        let (late, _, _) = Self.run(goal: 86_400, from: 43_200, seconds: 960, published: 0.05, delivered: 43_200) { _ in 0 }
        #expect(late.map(\.share) == [1], "\(late)")
    }

    @Test("a small share is kept, never rounded to 0: a goal of 1,000 a day against 2,000 impressions a second is met within 5%, its share 0 only at the end")
    func smallShare() {
        // Yesterday's share held (a share of 1 before any measure would let the whole goal through in the first tick).
        let (shares, delivered, _) = Self.run(goal: 1000, seconds: 86_400, published: 0.001) { _ in 2000 }
        let last = shares.last
        #expect(delivered >= 950 && delivered <= 1050, "\(delivered)")
        #expect(shares.dropLast().allSatisfy { $0.share > 0 } && (last?.share == 0 ? last!.second > 80_000 : true), "\(shares.suffix(5))")
        #expect(shares.contains { $0.share > 0 && $0.share < 0.001 }, "\(shares.prefix(5))")
    }

    @Test("a controller told to publish every move (no threshold, a measure at every tick, ticks every 5 s) still publishes at most one share an interval and the daily ceiling")
    func boundedChanges() {
        var controller = PacingController(relativeThreshold: 0, minimumSpacingSeconds: 10)
        controller.minimumSample = 1
        controller.maxChangesPerDay = 300
        let swinging: (Int) -> Double = { $0 / 5 % 2 == 0 ? 10 : 100 }
        let (shares, _, _) = Self.run(goal: 4_000_000, seconds: 86_400, controller: controller, step: 5, rate: swinging)
        // A stop (the window's end) is never held back: 300 moves and that one.
        #expect(shares.filter { $0.share != 0 }.count <= 300 && shares.count <= 301, "\(shares.count) shares published")
        #expect(zip(shares, shares.dropFirst()).allSatisfy { $1.second - $0.second >= 10 }, "\(shares.prefix(10))")
        // The bounds bind here: without them the same traffic moves the share at almost every tick (a quarter day of it).
        controller.maxChangesPerDay = .max
        controller.minimumSpacingSeconds = 0
        let unbounded = Self.run(goal: 4_000_000, seconds: 21_600, controller: controller, step: 5, rate: swinging).shares
        #expect(unbounded.count > 3000, "\(unbounded.count) shares published without the bounds")
        print("pacing: \(shares.count) shares published with a ceiling of 300 a day, \(unbounded.count) without")
    }
}
