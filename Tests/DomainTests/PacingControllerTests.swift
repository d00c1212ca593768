@testable import LaunchAdDomain
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
        // Then it rises by steps (at most twice the share, or 0.1 more, a tick), not to 1 at once.
        let (late, _, _) = Self.run(goal: 86_400, from: 43_200, seconds: 960, published: 0.05, delivered: 43_200) { _ in 0 }
        #expect(late.last?.share == 1, "\(late)")
        let steps: [Double] = late.map(\.share)
        let before: [Double] = [0.05] + steps
        let bounded = zip(before, steps).allSatisfy { (from: Double, to: Double) -> Bool in to <= max(2 * from, from + 0.1) + 1e-9 }
        #expect(bounded, "\(late)")
        #expect(late.first.map { $0.second >= 43_200 + 900 && $0.share <= 0.15 + 1e-9 } == true, "\(late)")
    }

    /// Ticks at the seconds of `delivered` (what the edges have reported by then), the share fed back as published;
    /// answers each tick's outcome.
    static func script(goal: Int, pacing: CampaignPacing = .asap, published: Double = 1, memory: PacingMemory? = nil,
                       _ delivered: [(second: Int, count: Int)]) -> [(second: Int, outcome: PacingOutcome)] {
        var memory = memory, share = published
        return delivered.map { second, count in
            let input = PacingInput(goal: goal, pacing: pacing, window: day, delivered: count, now: start.adding(seconds: Double(second)),
                                    published: share)
            let (outcome, kept) = PacingController().tick(input, memory: memory)
            (memory, share) = (kept, outcome.share)
            return (second, outcome)
        }
    }

    @Test("a stop holds while the impressions served before it are reported late: no share after the first 0, and delivered ends within the goal")
    func stopHoldsThroughLateCounts() {
        // 10 impressions a second at a share of 1; the edges' counts reach the sum a tick (10 s) late.
        let goal = 1000, controller = PacingController()
        var memory: PacingMemory?, share = 1.0, served = 0.0, reported = 0.0
        var shares: [(second: Int, share: Double)] = [], completed: [Bool] = []
        for second in stride(from: 0, to: 600, by: 10) {
            let input = PacingInput(goal: goal, pacing: .asap, window: Self.day, delivered: Int(reported), now: Self.start.adding(seconds: Double(second)),
                                    published: share)
            let (outcome, kept) = controller.tick(input, memory: memory)
            memory = kept
            shares.append((second, outcome.share))
            if shares.contains(where: { $0.share == 0 }) { completed.append(outcome.completed) }
            share = outcome.share
            reported = served
            served += 10 * share * 10
        }
        let stop = shares.firstIndex { $0.share == 0 }
        #expect(stop != nil && shares[(stop ?? 0)...].allSatisfy { $0.share == 0 }, "\(shares.suffix(shares.count - max(0, (stop ?? 0) - 3)))")
        #expect(completed.allSatisfy { $0 }, "\(completed)")
        #expect(served >= 950 && served <= 1000, "\(served) served for a goal of \(goal)")
    }

    @Test("a period stopped at its goal reopens only when delivered, every report in (a lag and a hold after the stop), is under 95% of it, and then by a step")
    func reopensOnlyShort() {
        // A measured 10 a second, then a stop estimated at the goal (what the share in effect may have left unreported).
        let ramp = (0...7).map { (second: $0 * 10, count: $0 * 100) }
        for (after, reopens) in [(900, true), (960, false)] {
            let ticks = Self.script(goal: 1000, ramp + (8...20).map { (second: $0 * 10, count: after) })
            let stop = ticks.firstIndex { $0.outcome.share == 0 }
            #expect(stop.map { ticks[$0].second } == 80, "\(ticks.map { ($0.second, $0.outcome.share) })")
            let held = ticks.filter { $0.second > 80 && $0.second < 115 }
            #expect(held.allSatisfy { $0.outcome.share == 0 && $0.outcome.completed }, "\(held.map { ($0.second, $0.outcome.share) })")
            let later = ticks.filter { $0.second >= 115 }.map(\.outcome.share)
            if reopens {
                #expect(later.first.map { $0 > 0 && $0 <= 0.1 } == true, "\(later)")
            } else {
                #expect(later.allSatisfy { $0 == 0 }, "\(later)")
            }
        }
    }

    @Test("even's run-ahead is weighted by the higher of the offered rate now and its tenth's average: traffic rising to twice the even rate out of a night the average still remembers is paced on the even line")
    func runAheadFollowsTheRateNow() {
        let goal = 86_400  // an even rate of 1 a second
        let controller = PacingController()
        let elapsed = 0.3 * 86_400
        let input = PacingInput(goal: goal, pacing: .even, window: Self.day, delivered: Int(elapsed), now: Self.start.adding(seconds: elapsed))
        // On the even line, offered twice the even rate, the average still at 1: no run-ahead, half the traffic.
        let rising = controller.evenShare(input, rate: 2, unreported: 0, abundance: 1, lag: 20, left: 86_400 - elapsed, elapsed: elapsed)
        #expect(abs(rising - 0.5) < 0.01, "\(rising)")
        // Offered just the even rate, now and on average: the run-ahead in full, so it asks for more than the traffic has.
        let scarce = controller.evenShare(input, rate: 1, unreported: 0, abundance: 1, lag: 20, left: 86_400 - elapsed, elapsed: elapsed)
        #expect(scarce > 1, "\(scarce)")
    }

    @Test("a leader with no memory that finds a share of 0 keeps it while delivered is at least 95% of the goal; a 0 from the last period reopens by a step, not at 1")
    func restartAtZero() {
        let met = Self.script(goal: 1000, published: 0, (0..<30).map { (second: $0 * 10, count: 970) })
        #expect(met.allSatisfy { $0.outcome.share == 0 && $0.outcome.completed }, "\(met.map(\.outcome.share))")
        let yesterday = Self.script(goal: 1000, published: 0, [(second: 0, count: 0)])
        #expect(yesterday.first.map { $0.outcome.share > 0 && $0.outcome.share <= 0.1 } == true, "\(yesterday.map(\.outcome.share))")
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
