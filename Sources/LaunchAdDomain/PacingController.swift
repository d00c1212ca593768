/// The window a goal counts over at a moment: from `start` (inclusive) to `end` (exclusive).
public struct PacingWindow: Sendable, Hashable {
    public var start: Timestamp
    public var end: Timestamp

    public init(start: Timestamp, end: Timestamp) {
        self.start = start
        self.end = end
    }

    /// The window's length, in seconds (never below a millisecond).
    public var seconds: Double { Double(max(1, end.milliseconds - start.milliseconds)) / 1000 }
}

/// What pacing knows of a campaign's period at one tick: its goal, what the edges have reported delivered in the
/// window so far, and the share the edges hold.
public struct PacingInput: Sendable, Hashable {
    public var goal: Int
    public var pacing: CampaignPacing
    public var window: PacingWindow
    public var delivered: Int
    public var now: Timestamp
    /// The share the edges hold now: the campaign's published share (1 without one). The share in effect since the
    /// last tick, and where a controller that remembers nothing of the campaign (a restarted or new leader) starts.
    public var published: Double

    public init(goal: Int, pacing: CampaignPacing, window: PacingWindow, delivered: Int, now: Timestamp, published: Double = 1) {
        self.goal = goal
        self.pacing = pacing
        self.window = window
        self.delivered = delivered
        self.now = now
        self.published = published
    }
}

/// What pacing remembers of a campaign between ticks (in campaignd's memory: a new leader starts from the published
/// share and measures again before it raises it).
public struct PacingMemory: Sendable {
    /// The window the memory is of: a new period starts over.
    public var window: PacingWindow
    public var delivered: Int
    public var at: Timestamp
    /// The share the edges were told (1 without one).
    public var share: Double
    /// Impressions a second the campaign would get at a share of 1, smoothed; `nil` until a tick measured it.
    public var offeredRate: Double?
    /// The delivered count and time the offered rate's current measure started from, and the share-seconds served
    /// since: a measure is taken once it spans enough impressions or time to say something (a campaign of a few
    /// impressions a minute would otherwise measure noise).
    public var sampleDelivered: Int
    public var sampleAt: Timestamp
    public var exposure: Double
    /// The impressions and share-seconds behind the offered rate so far: until they reach ``PacingController/minimumSample``
    /// impressions, each lag measures again over all of them (a first measure of a few impressions is too rough to keep).
    public var measured: Int
    public var measuredExposure: Double
    /// Since when nothing was counted before any measure: the measure starts with the first count (the time before it
    /// had no traffic to measure), and nothing for the longest measure's span says the rate is 0.
    public var quietSince: Timestamp?
    /// The shares decided within the last lag and hold, with when, and the last one before (the one in effect at the
    /// span's start): impressions they let through may not be counted yet.
    public var recent: [(at: Timestamp, share: Double)]
    /// The offered rate over the rate the rest of the goal needs, averaged over about a tenth of the window: near 1,
    /// the period has no traffic to spare and `even` lets delivery run ahead of the even line rather than throttle.
    public var abundance: Double?
    /// When shares were published over the last day (for the daily ceiling), kept across periods.
    public var publishedAt: [Timestamp]
    /// When the share went to 0 because the goal was (estimated) met in this window: it stays 0 for the rest of the
    /// period unless what was delivered, all reports in, falls short of ``PacingController/reopenBelow`` of the goal.
    public var stoppedAt: Timestamp? = nil
}

/// The controller's answer for one campaign at one tick.
public struct PacingOutcome: Sendable, Hashable {
    /// The share to answer it with, 0 to 1: 0 only when the goal is met or no time is left.
    public var share: Double
    /// Impressions a second it would get at a share of 1 (`nil`: not measured yet).
    public var offeredRate: Double?
    /// What the period will end at, at this pace: the goal when traffic allows, less when it does not.
    public var projected: Int
    /// Delivered against what an even spread would have delivered by now (1: on pace; below 1: behind).
    public var pace: Double
    /// The goal is met for the period (the share is 0 until the next one).
    public var completed: Bool
}

/// campaignd's pacing, a proportional controller on the serve share (proto-docs/pacing.md says why this one):
/// `even` steers what was delivered towards a line from 0 to the goal over the window, allowed to run ahead of the
/// even line by up to ``runAhead`` of the goal (most at ``runAheadPeak`` of the window) when traffic has nothing to
/// spare; `asap` serves everything until the goal is all but met. The share is the rate wanted over the rate the
/// campaign is offered at a share of 1, measured from the delivered counts. What the edges may still deliver unreported (the offered rate at the highest
/// recent share over ``lagSeconds``) counts as delivered, and no share lets through more than what is left over
/// ``controlSeconds``, so late counts cannot carry the campaign past its goal.
public struct PacingController: Sendable {
    /// The least share short of a met goal: a share never rounds to 0 (which would measure nothing again).
    public static let minimumShare = 0.000_001
    /// How much a share must move, relative to the larger of the published and the new one, to be published (a
    /// smaller move is noise, and each published share is a change every edge applies). Reaching 0 or 1 always is.
    public var relativeThreshold: Double
    /// How close to the goal counts as met (a share of the goal).
    public var completionMargin: Double
    /// How long an impression may take to reach the sum: what the edges served in this many seconds before a tick
    /// may not be counted yet. campaignd sets it from the reports it observes (1.5 times the slowest edge's interval).
    public var lagSeconds: Double
    /// How long a share holds before the next one can replace it at every edge (the tick and the propagation):
    /// a share never lets through more than what is left could absorb in that time.
    public var controlSeconds: Double
    /// The weight of the newest measure in the offered rate's average.
    public var smoothing: Double
    /// The impressions a measure of the offered rate waits for, unless ``maximumSampleSeconds`` pass first; a measure
    /// that counted nothing waits for those seconds too (a share held low by a restart must not read as no traffic).
    public var minimumSample = 200
    public var maximumSampleSeconds: Double = 900
    /// How far `even` may run ahead of the even line when traffic has nothing to spare, as a share of the goal, at
    /// its most (``runAheadPeak``).
    public var runAhead = 0.1
    /// Where in the window the run-ahead is largest: it rises as the square of the time to it (0.0016 of the goal at the
    /// first tenth, 0.039 at mid-window: a morning that falls short is then made up at the even rate's pace rather than
    /// chased towards a run-ahead the afternoon may not need) and falls in the last fifth, where traffic that had nothing
    /// to spare runs out anyway.
    public var runAheadPeak = 0.8
    /// At most one published share per this many seconds (the pacing interval), and at most ``maxChangesPerDay`` a
    /// day per campaign; a share of 0 (the goal met) is always published.
    public var minimumSpacingSeconds: Double
    public var maxChangesPerDay = 500
    /// A period stopped at its goal (estimated) reopens only when what was delivered, every report in, is below this
    /// share of the goal; a leader that finds a share of 0 in the store keeps it while delivered is at least this much.
    /// Well below the completion margin, so a stop never flaps on late counts.
    public var reopenBelow = 0.95
    /// How far a share may rise in one tick without a measured rate (or from 0): to at most twice it, or by this much
    /// if more.
    public var unmeasuredStep = 0.1

    public init(relativeThreshold: Double = 0.05, completionMargin: Double = 0.002, lagSeconds: Double = 15, controlSeconds: Double = 20,
                smoothing: Double = 0.3, minimumSpacingSeconds: Double = 10) {
        self.relativeThreshold = relativeThreshold
        self.completionMargin = completionMargin
        self.lagSeconds = lagSeconds
        self.controlSeconds = controlSeconds
        self.smoothing = smoothing
        self.minimumSpacingSeconds = minimumSpacingSeconds
    }

    /// The outcome of a tick and the memory for the next one.
    public func tick(_ input: PacingInput, memory: PacingMemory?) -> (outcome: PacingOutcome, memory: PacingMemory) {
        let window = input.window
        let previous = memory?.window == window ? memory : nil
        // What the edges hold is the store's word: a leader that just took over, or restarted, starts from it.
        let share = min(1, max(0, input.published))
        var rate = previous?.offeredRate
        var abundance = previous?.abundance
        var sampleDelivered = previous?.sampleDelivered ?? input.delivered
        var sampleAt = previous?.sampleAt ?? input.now
        var exposure = previous?.exposure ?? 0
        var measured = previous?.measured ?? 0
        var measuredExposure = previous?.measuredExposure ?? 0
        var quietSince = previous?.quietSince
        // A tick that came late says the host is slow, and so are the reports and the share's way back: both spans
        // stretch with it.
        let spacing = previous.map { Double(input.now.milliseconds - $0.at.milliseconds) / 1000 } ?? 0
        let lagSeconds = max(self.lagSeconds, 1.5 * spacing)
        let controlSeconds = max(self.controlSeconds, 2 * spacing)
        if let previous, input.now > previous.at {
            let counted = input.delivered - sampleDelivered
            if rate == nil && counted <= 0 {
                // No traffic yet: the measure starts at the first count. Nothing for the longest span is a rate of 0;
                // anything shorter lifts nothing (a share held low after a restart lets little through).
                let quiet = quietSince ?? previous.at
                quietSince = quiet
                if quiet.seconds(until: input.now) >= maximumSampleSeconds { rate = 0 }
                (sampleDelivered, sampleAt, exposure) = (input.delivered, input.now, 0)
            } else {
                quietSince = nil
                exposure += share * spacing
                let span = sampleAt.seconds(until: input.now)
                // Until the rate stands on enough impressions, a measure at every tick over all counted so far: until
                // there is a rate, nothing bounds what the edges deliver between two ticks, and a rough one must not stay.
                let early = measured < minimumSample
                let enough = counted > 0 ? counted >= minimumSample || span >= maximumSampleSeconds || (early && span > 0)
                    : span >= maximumSampleSeconds
                if exposure > 0 && enough {
                    if early {
                        measured += max(0, counted)
                        measuredExposure += exposure
                        rate = Double(measured) / measuredExposure
                    } else {
                        let sample = Double(max(0, counted)) / exposure
                        rate = rate.map { $0 + smoothing * (sample - $0) } ?? sample
                    }
                    (sampleDelivered, sampleAt, exposure) = (input.delivered, input.now, 0)
                }
            }
        } else if previous == nil, let memory, memory.window != window {
            // A new period: yesterday's traffic is the best guess of today's.
            rate = memory.offeredRate
            abundance = memory.abundance
        }
        let left = max(0, Double(window.end.milliseconds - input.now.milliseconds) / 1000)
        let elapsed = max(0, Double(input.now.milliseconds - window.start.milliseconds) / 1000)
        // What the edges may have delivered and not yet reported: the highest share of the last lag, over the lag. A
        // share reaches the edges up to a hold after it was decided, so the span is the lag and the hold, and the share
        // decided before it (in effect at its start) counts too: a stop does not make the tick after it forget what ran.
        let spanStart = input.now.adding(seconds: -(lagSeconds + controlSeconds))
        let kept = previous?.recent ?? []
        let recent = (kept.last { $0.at < spanStart }.map { [$0] } ?? []) + kept.filter { $0.at >= spanStart }
        let recentShare = max(share, recent.map(\.share).max() ?? share)
        let unreported = (rate ?? 0) * recentShare * lagSeconds
        let remaining = Double(input.goal - input.delivered) - unreported
        // Met once what is left, with what the share in effect may have served unreported, is within the completion
        // margin: chasing the last impressions through shares too small to measure would only risk going over. (The
        // higher shares of the last lag bound the share below; counted here they would stop a small goal short of it.)
        let completed = Double(input.goal - input.delivered) - (rate ?? 0) * share * lagSeconds <= Double(input.goal) * completionMargin
        if let rate, rate > 0, left > 0 {
            let even = Double(input.goal) / window.seconds
            let tau = max(lagSeconds, window.seconds / 10)
            let weight = spacing / (tau + spacing)  // a moving average over about a tenth of the window
            abundance = abundance.map { $0 + weight * (rate / even - $0) } ?? rate / even
        }
        // A period stopped at its goal stays stopped: the counts that come in after the stop were let through before
        // it. Only a shortfall once every report is in (below ``reopenBelow`` of the goal) reopens it. A share of 0 this
        // memory did not decide (a restart, a new leader) is such a stop while delivered is that high; a 0 left from
        // the last period finds little delivered in this one and reopens.
        let floor = Double(input.goal) * reopenBelow
        var stoppedAt = share == 0 ? previous?.stoppedAt : nil
        if share == 0 && stoppedAt == nil && Double(input.delivered) >= floor { stoppedAt = input.now }
        let settled = stoppedAt.map { $0.seconds(until: input.now) >= lagSeconds + controlSeconds } ?? false
        let held = stoppedAt != nil && !(settled && Double(input.delivered) < floor)
        var next: Double
        if held || completed || left <= 0 {
            next = 0
        } else if let rate, rate > 0 {
            switch input.pacing {
            case .even: next = evenShare(input, rate: rate, unreported: unreported, abundance: abundance ?? 1, lag: controlSeconds, left: left,
                                         elapsed: elapsed)
            case .asap: next = 1
            }
            // Never more than what is left could take before the next share reaches the edges: they cannot be stopped
            // sooner.
            next = min(next, remaining / (rate * controlSeconds))
            next = max(Self.minimumShare, min(1, (next / Self.minimumShare).rounded() * Self.minimumShare))
        } else if rate == 0 {
            next = 1  // nothing came for the longest measure: nothing to hold back (but by steps, below)
        } else {
            // Nothing measured yet: hold what the edges have until a measure says more (a period reopened from 0 starts
            // serving, by a step).
            next = share > 0 ? share : 1
        }
        if next > share && (share == 0 || (rate ?? 0) <= 0) {
            // Without a measured rate, or from 0, nothing says how much a higher share lets through: rise by steps.
            next = min(next, max(2 * share, share + unmeasuredStep))
        }
        var stamps = (memory?.publishedAt ?? []).filter { $0 > input.now.adding(seconds: -86_400) }
        if next != share && next != 0 {
            // A small move keeps the published share (reaching 1 is always published); then at most one a spacing and a
            // ceiling a day, so the change log is never flooded. A stop (0) is never held back.
            let small = next != 1 && abs(next - share) < relativeThreshold * max(next, share)
            let soon = stamps.last.map { Double(input.now.milliseconds - $0.milliseconds) / 1000 < minimumSpacingSeconds } ?? false
            if small || soon || stamps.count >= maxChangesPerDay { next = share }
        }
        if next != share { stamps.append(input.now) }
        let projected = Int(min(Double(input.goal), Double(input.delivered) + (rate ?? 0) * left))
        let expected = Double(input.goal) * min(1, elapsed / window.seconds)
        let pace = expected > 0 ? Double(input.delivered) / expected : 1
        let done = held || completed
        let outcome = PacingOutcome(share: next, offeredRate: rate, projected: done ? max(input.delivered, input.goal) : projected,
                                    pace: pace, completed: done)
        return (outcome, PacingMemory(window: window, delivered: input.delivered, at: input.now, share: next, offeredRate: rate,
                                      sampleDelivered: sampleDelivered, sampleAt: sampleAt, exposure: exposure, measured: measured,
                                      measuredExposure: measuredExposure, quietSince: quietSince,
                                      recent: recent + [(at: input.now, share: next)], abundance: abundance, publishedAt: stamps,
                                      stoppedAt: next == 0 && done ? stoppedAt ?? input.now : nil))
    }

    /// `even`'s share: the rate that brings delivered (with what may be unreported) to the line it aims at one horizon
    /// ahead, over the offered rate. The line is the even one plus a run-ahead that is 0 at both ends of the window and
    /// largest at ``runAheadPeak`` of it, in full when the offered rate, both now and averaged over a tenth of the window,
    /// is no more than the even rate (`abundance` 1: traffic that rises and falls through the day then cannot be held
    /// back at its peak and missed after it), none when either is twice it (plenty: the goal is spread evenly). The
    /// higher of the two, because the average lags: traffic rising out of a night that fell short already has room,
    /// and must not chase a run-ahead the average still asks for. Below the line the horizon is a tenth of the window,
    /// so a shortfall is made up over a tenth rather than at once; at or above it, a fiftieth.
    func evenShare(_ input: PacingInput, rate: Double, unreported: Double, abundance: Double, lag: Double, left: Double,
                   elapsed: Double) -> Double {
        let length = input.window.seconds
        let goal = Double(input.goal)
        let weight = min(1, max(0, 2 - max(abundance, rate * length / goal)))
        func line(_ seconds: Double) -> Double {
            let at = min(1, seconds / length)
            let rise = at / runAheadPeak
            return min(goal, goal * at + weight * runAhead * goal * min(rise * rise, (1 - at) / (1 - runAheadPeak)))
        }
        let counted = Double(input.delivered) + unreported
        let horizon = min(left, counted < line(elapsed) ? length / 10 : max(2 * lag, length / 50))
        return (line(elapsed + horizon) - counted) / horizon / rate
    }
}
