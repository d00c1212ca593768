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
/// window so far, and the share in effect since the last tick.
public struct PacingInput: Sendable, Hashable {
    public var goal: Int
    public var pacing: CampaignPacing
    public var window: PacingWindow
    public var delivered: Int
    public var now: Timestamp

    public init(goal: Int, pacing: CampaignPacing, window: PacingWindow, delivered: Int, now: Timestamp) {
        self.goal = goal
        self.pacing = pacing
        self.window = window
        self.delivered = delivered
        self.now = now
    }
}

/// What pacing remembers of a campaign between ticks (in campaignd's memory: a new leader learns it again in a tick).
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
    /// The shares published within the last lag, with when: impressions they let through may not be counted yet.
    public var recent: [(at: Timestamp, share: Double)]
}

/// The controller's answer for one campaign at one tick.
public struct PacingOutcome: Sendable, Hashable {
    /// The share to answer it with, 0 to 1, in steps of ``PacingController/shareStep``.
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
/// `even` asks for the goal left spread over the time left, `asap` for everything until the goal is all but met; the
/// share is that rate over the rate the campaign is offered at a share of 1, measured from the delivered counts.
/// What the edges may still deliver unreported (a share of the offered rate over ``lagSeconds``) counts as delivered,
/// so late counts cannot carry the campaign past its goal.
public struct PacingController: Sendable {
    /// The share's resolution: a change smaller than a step is no change.
    public static let shareStep = 0.001
    /// How much a share must move to be published (a smaller move is noise, and each published share is a change
    /// every edge applies).
    public var threshold: Double
    /// The same, relative to the share published: a share of 0.5 moves by 0.025 before it is published again.
    public var relativeThreshold: Double
    /// How close to the goal counts as met (a share of the goal).
    public var completionMargin: Double
    /// How long an impression may take to reach the sum: the edges' report interval, a relay's, the tick's and the
    /// share's propagation, with room for an edge that reports late.
    public var lagSeconds: Double
    /// The weight of the newest measure in the offered rate's average.
    public var smoothing: Double
    /// The impressions a measure of the offered rate waits for, unless ``maximumSampleSeconds`` pass first.
    public var minimumSample = 200
    public var maximumSampleSeconds: Double = 900

    public init(threshold: Double = 0.01, relativeThreshold: Double = 0.05, completionMargin: Double = 0.002, lagSeconds: Double = 30,
                smoothing: Double = 0.3) {
        self.threshold = threshold
        self.relativeThreshold = relativeThreshold
        self.completionMargin = completionMargin
        self.lagSeconds = lagSeconds
        self.smoothing = smoothing
    }

    /// The outcome of a tick and the memory for the next one.
    public func tick(_ input: PacingInput, memory: PacingMemory?) -> (outcome: PacingOutcome, memory: PacingMemory) {
        let window = input.window
        let previous = memory?.window == window ? memory : nil
        let share = previous?.share ?? 1
        var rate = previous?.offeredRate
        var sampleDelivered = previous?.sampleDelivered ?? input.delivered
        var sampleAt = previous?.sampleAt ?? input.now
        var exposure = previous?.exposure ?? 0
        if let previous, input.now > previous.at {
            exposure += previous.share * Double(input.now.milliseconds - previous.at.milliseconds) / 1000
            let counted = input.delivered - sampleDelivered
            let span = Double(input.now.milliseconds - sampleAt.milliseconds) / 1000
            // A first measure as soon as a lag has passed, small or not: until there is a rate, nothing bounds what the
            // edges deliver between two ticks.
            if exposure > 0 && (counted >= minimumSample || span >= maximumSampleSeconds || (rate == nil && span >= lagSeconds)) {
                let measured = Double(max(0, counted)) / exposure
                rate = rate.map { $0 + smoothing * (measured - $0) } ?? measured
                (sampleDelivered, sampleAt, exposure) = (input.delivered, input.now, 0)
            }
        } else if rate == nil, let memory, memory.window != window {
            rate = memory.offeredRate  // a new period: yesterday's traffic is the best guess of today's
        }
        let left = max(0, Double(window.end.milliseconds - input.now.milliseconds) / 1000)
        let elapsed = max(0, Double(input.now.milliseconds - window.start.milliseconds) / 1000)
        // A tick that came late says the host is slow, and so are the reports and the share's way back: the lag
        // stretches with it (three of the last tick's spacing).
        let spacing = previous.map { Double(input.now.milliseconds - $0.at.milliseconds) / 1000 } ?? 0
        let lagSeconds = max(self.lagSeconds, 3 * spacing)
        // What the edges may have delivered and not yet reported: the highest share of the last lag, over the lag.
        let lagStart = input.now.adding(seconds: -lagSeconds)
        let recent = (previous?.recent ?? []).filter { $0.at >= lagStart }
        let recentShare = recent.map(\.share).max() ?? share
        let unreported = (rate ?? 0) * max(share, recentShare) * lagSeconds
        let remaining = Double(input.goal - input.delivered) - unreported
        // Met once what is left is within the completion margin: chasing the last impressions through shares too small
        // to measure would only risk going over.
        let completed = remaining <= Double(input.goal) * completionMargin
        var next: Double
        if completed || left <= 0 {
            next = 0
        } else if let rate, rate > 0 {
            switch input.pacing {
            case .even: next = min(1, remaining / left / rate)
            case .asap: next = 1
            }
            // Never more than what is left could be delivered within one lag: the edges cannot be stopped sooner.
            next = min(next, remaining / (rate * lagSeconds))
        } else {
            next = 1  // nothing measured yet: serve, and measure
        }
        next = (next / Self.shareStep).rounded() * Self.shareStep
        if next > 0 && next < Self.shareStep { next = Self.shareStep }
        // A small move keeps the published share; reaching 0 or 1 is always published.
        if abs(next - share) < max(threshold, relativeThreshold * share) && next != 0 && next != 1 { next = share }
        let projected = Int(min(Double(input.goal), Double(input.delivered) + (rate ?? 0) * left))
        let expected = Double(input.goal) * min(1, elapsed / window.seconds)
        let pace = expected > 0 ? Double(input.delivered) / expected : 1
        let outcome = PacingOutcome(share: next, offeredRate: rate, projected: completed ? max(input.delivered, input.goal) : projected,
                                    pace: pace, completed: completed)
        return (outcome, PacingMemory(window: window, delivered: input.delivered, at: input.now, share: next, offeredRate: rate,
                                      sampleDelivered: sampleDelivered, sampleAt: sampleAt, exposure: exposure,
                                      recent: recent + [(at: input.now, share: next)]))
    }
}
