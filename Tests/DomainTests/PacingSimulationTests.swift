import Foundation
@testable import LaunchAdDomain
import Testing

/// A day of pacing simulated second by second: traffic that rises and falls through the day, launches from a
/// population of devices split between two edges that each decide through the decision's own per-device draw
/// (``DecisionEngine/servesShare(_:below:device:_:)``) under the share they hold, count what they serve and report
/// every interval (one of them late, and once silent for minutes), and the controller ticking every interval on the
/// sum of what has arrived, its shares reaching the edges a moment later.
@Suite("Pacing over a simulated day", .timeLimit(.minutes(2)))
struct PacingSimulationTests {
    static let day = 86_400
    static let start = Timestamp(rfc3339: "2026-12-07T00:00:00Z")!
    static let interval = 10
    static let campaign: Int64 = 42
    /// The devices launches come from, hashed once as the decision hashes a device id.
    static let devices: [UInt64] = (0..<200_000).map { FNV1a.hash("device-\($0)") }

    struct Result {
        var delivered: Int
        var tenths: [Int]
        /// The launches each tenth offered (what a share of 1 would have served).
        var offered: [Int]
        var final: PacingOutcome
        var published: Int
        /// The second the share first went to 0.
        var stoppedAt: Int?
        var tenthsOfGoal: [Double] { tenths.map { (Double($0) / (Double(goal) / 10) * 100).rounded() / 100 } }
        var offeredOfGoal: [Double] { offered.map { (Double($0) / (Double(goal) / 10) * 100).rounded() / 100 } }
        var goal: Int
    }

    /// Simulates one campaign with `goal` over the day, offered `traffic` times what the goal needs.
    static func simulate(goal: Int, pacing: CampaignPacing, traffic: Double, silence: Range<Int>? = nil, seed: UInt64 = 0,
                         controller: PacingController = PacingController()) -> Result {
        let window = PacingWindow(start: start, end: start.adding(seconds: Double(day)))
        let needed = Double(goal) / Double(day)
        var memory: PacingMemory?
        var boundAtEdge: [UInt64] = [.max, .max]
        var published = 1.0
        var pendingShares: [(at: Int, edge: Int, share: Double)] = []
        var launches = 0.0
        var reports: [(at: Int, count: Int)] = []
        var reported = 0
        var tenths = Array(repeating: 0, count: 10)
        var offered = Array(repeating: 0, count: 10)
        var delivered = 0
        var outcome: PacingOutcome?
        var changes = 0
        var stoppedAt: Int?
        var random: UInt64 = 0x9E37_79B9_7F4A_7C15 &+ seed
        func next() -> UInt64 {
            random = random &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return random >> 11
        }
        for second in 0..<day {
            // Traffic through the day: a night low at half the mean and a peak at 1.5 times it, with noise.
            let phase = Double(second) / Double(day)
            let noise = 0.8 + 0.4 * Double(next()) / Double(1 << 53)
            launches += traffic * needed * (1 - 0.5 * cos(2 * Double.pi * phase)) * noise
            let now = start.adding(seconds: Double(second))
            var served = [0, 0]
            let tenth = min(9, second * 10 / day)
            while launches >= 1 {
                launches -= 1
                offered[tenth] += 1
                // Each launch from a device drawn at random, at one edge or the other, decided by the edge's share.
                let draw = next()
                let edge = Int(draw & 1)
                let device = devices[Int((draw >> 1) % UInt64(devices.count))]
                if boundAtEdge[edge] == .max || DecisionEngine.servesShare(campaign, below: boundAtEdge[edge], device: device, now) {
                    served[edge] += 1
                }
            }
            for edge in 0..<2 where served[edge] > 0 {
                tenths[tenth] += served[edge]
                delivered += served[edge]
                // Edge 0 reports within the interval; edge 1 a full interval later, and not at all through `silence`
                // (its counts arrive together when it comes back).
                let due = (second / interval + 1) * interval + (edge == 1 ? interval : 0)
                let back = silence.map { edge == 1 && $0.contains(due) ? $0.upperBound : due } ?? due
                reports.append((at: back, count: served[edge]))
            }
            reports.removeAll { report in
                if report.at <= second { reported += report.count; return true }
                return false
            }
            for pending in pendingShares where pending.at == second { boundAtEdge[pending.edge] = DecisionEngine.shareBound(pending.share) }
            pendingShares.removeAll { $0.at <= second }
            if second % interval == 0 {
                let input = PacingInput(goal: goal, pacing: pacing, window: window, delivered: reported, now: now, published: published)
                let (result, kept) = controller.tick(input, memory: memory)
                memory = kept
                outcome = result
                if result.share == 0 && stoppedAt == nil { stoppedAt = second }
                if result.share != published {
                    changes += 1
                    published = result.share
                    // The share reaches edge 0 in a second and edge 1 in five.
                    pendingShares += [(at: second + 1, edge: 0, share: result.share), (at: second + 5, edge: 1, share: result.share)]
                }
            }
        }
        return Result(delivered: delivered, tenths: tenths, offered: offered, final: outcome!, published: changes, stoppedAt: stoppedAt, goal: goal)
    }

    @Test("even pacing meets the goal within 5% (never over) and spreads it over the tenths of the day within ±25% from 1.5 times the traffic it needs, a tenth whose traffic offers less than 0.75 of a tenth getting what it offers",
          arguments: [3.0, 2.0, 1.5])
    func even(traffic: Double) {
        // Two noise seeds each: the worst tenth of either, not one lucky run.
        for goal in [20_000, 1_000_000] {
            for seed: UInt64 in [0, 0x5DEE_CE66D] {
                let result = Self.simulate(goal: goal, pacing: .even, traffic: traffic, seed: seed)
                let ratio = Double(result.delivered) / Double(goal)
                let run = "goal \(goal) traffic \(traffic) seed \(seed)"
                #expect(ratio <= 1 && ratio >= 0.95, "\(run): \(result.delivered) (\(ratio))")
                let tenthOfGoal = Double(goal) / 10
                for (index, tenth) in result.tenths.enumerated() {
                    let share = Double(tenth) / tenthOfGoal
                    // At 1.5 times, the night offers about 0.75 of the even rate: a tenth cannot deliver more than its
                    // launches, so its floor is what they offered (less 2%: the share falls below 1 at the edges' draw)
                    // when that is under 0.75.
                    let offered = Double(result.offered[index]) / tenthOfGoal
                    let floor = min(0.75, 0.98 * offered)
                    #expect(share >= floor && share <= 1.25,
                            "\(run): tenth \(index) \(tenth) (\(share), offered \(offered)) of \(result.tenthsOfGoal)")
                }
                // Coalesced: far fewer published shares than ticks (8,640 a day).
                #expect(result.published < 1_500, "\(result.published) shares published")
                print("pacing even \(run): delivered \(result.delivered) (\(ratio)), tenths \(result.tenthsOfGoal), offered \(result.offeredOfGoal), \(result.published) shares published")
            }
        }
    }

    @Test("with just the traffic the goal needs on average (rising and falling through the day), even pacing is never over and delivers at least 95% of it")
    func justEnough() {
        for goal in [200_000, 20_000] {
            let result = Self.simulate(goal: goal, pacing: .even, traffic: 1)
            let ratio = Double(result.delivered) / Double(goal)
            // The night falls short and the peak cannot be held back to an even rate: the line even aims at runs ahead of
            // the even one mid-day when traffic has nothing to spare.
            #expect(ratio <= 1.05 && ratio >= 0.95, "goal \(goal): \(result.delivered) (\(ratio))")
            print("pacing even goal \(goal) traffic 1: delivered \(result.delivered) (\(ratio)), tenths \(result.tenthsOfGoal), \(result.published) shares published")
        }
    }

    @Test("asap serves everything until the goal is all but met, never more than 5% over even when an edge is silent for the five minutes before, and stops")
    func asap() throws {
        let goal = 500_000
        let plain = Self.simulate(goal: goal, pacing: .asap, traffic: 3)
        // The late edge silent for the five minutes before the goal was met: its counts arrive all at once after.
        let stopped = try #require(plain.stoppedAt)
        let silent = Self.simulate(goal: goal, pacing: .asap, traffic: 3, silence: (stopped - 300)..<(stopped + 1))
        for (name, result) in [("plain", plain), ("silent edge", silent)] {
            let ratio = Double(result.delivered) / Double(goal)
            #expect(ratio <= 1.05 && ratio >= 0.95, "\(name): \(result.delivered) (\(ratio))")
            #expect(result.final.completed && result.final.share == 0, "\(name): \(result.final) \(result.delivered)")
            // The goal came early: the last tenths saw nothing.
            #expect(result.tenths[9] == 0, "\(name): \(result.tenths)")
            print("pacing asap goal \(goal) traffic 3, \(name): delivered \(result.delivered) (\(ratio)), stopped at \(result.stoppedAt ?? -1) s, tenths \(result.tenthsOfGoal), \(result.published) shares published")
        }
    }

    @Test("with too little traffic (half of what the goal needs) pacing serves every device and says so: a projection and a pace below the goal")
    func tooLittleTraffic() {
        let goal = 100_000
        let result = Self.simulate(goal: goal, pacing: .even, traffic: 0.5)
        let ratio = Double(result.delivered) / Double(goal)
        #expect(ratio > 0.4 && ratio < 0.6, "\(ratio)")
        #expect(result.final.share == 1 && !result.final.completed)
        #expect(result.final.pace < 0.6 && result.final.projected < goal * 6 / 10, "\(result.final)")
        print("pacing even goal \(goal) traffic 0.5: delivered \(result.delivered) (\(ratio)), tenths \(result.tenthsOfGoal), \(result.published) shares published")
    }
}
