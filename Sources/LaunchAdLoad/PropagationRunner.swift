import Foundation
import JSONRPC
import LaunchAdDomain
import ZeroMQ

public enum PropagationRunner {
    /// Runs the measurement; `log` gets one line per step for people watching.
    public static func run(_ configuration: PropagationConfiguration, log: (String) -> Void = { _ in }) throws -> PropagationResult {
        try configuration.validate()
        let context = try ZMQContext()
        defer { context.shutdown() }
        let admin = try CallLine(context, endpoint: configuration.adminEndpoint, curve: configuration.adminCurve)
        let edges = try configuration.edges.map { try CallLine(context, endpoint: $0, curve: nil) }
        // What looks for each change: the client sockets, or a kept-alive HTTP connection to each edge.
        let probes: [any ProbeLine] = switch configuration.probeOver {
        case .zmq: edges
        case .http: try configuration.edgeHTTP.map { try HTTPCallLine($0!, timeout: configuration.timeout) }
        }
        // The same, for the steps measured, to the edges probed: over ZeroMQ, one socket to all of them, so that one
        // poll waits on all.
        let probed = configuration.probedEdges
        let fleet: any ProbeFleet = switch configuration.probeOver {
        case .zmq: try RouterFleet(context, endpoints: probed.map { configuration.edges[$0] }, inFlight: configuration.probesInFlight)
        case .http: LineFleet(probed.map { probes[$0] })
        }
        let timeout = configuration.timeout

        func adminCall(_ method: String, _ params: JSONValue) throws -> JSONObject {
            do {
                guard let object = try admin.call(method, params, timeout: timeout).objectValue else {
                    throw PropagationError.admin("\(method) answered something other than an object")
                }
                return object
            } catch let PropagationError.edge(_, reason) {
                throw PropagationError.admin("\(method): \(reason)")
            }
        }
        func campaignId(_ answer: JSONObject) throws -> Int64 {
            guard let id = answer["campaign"]?.objectValue?["id"]?.intValue else { throw PropagationError.admin("no campaign id in the answer") }
            return Int64(id)
        }

        // One creative for every campaign of the run, so edges already hold it when a campaign is forced.
        let upload = try adminCall("creative.upload", [
            "contentType": "image/png", "data": .string(Data(probePNG(width: 1080, height: 1920)).base64EncodedString()),
        ])
        guard let sha256 = upload["sha256"]?.stringValue else { throw PropagationError.admin("creative.upload gave no sha256") }
        let formatter = ISO8601DateFormatter()
        let startsAt = formatter.string(from: Date().addingTimeInterval(-60))
        let endsAt = formatter.string(from: Date().addingTimeInterval(6 * 3600))
        func fields(_ name: String, priority: Int) -> JSONValue {
            [
                "name": .string(name), "app": .string(configuration.app), "startsAt": .string(startsAt), "endsAt": .string(endsAt),
                "priority": .number(JSONNumber(priority)), "creatives": [["sha256": .string(sha256)]],
            ]
        }
        func idParams(_ id: Int64) -> JSONValue { ["id": .number(JSONNumber(id))] }

        // The baseline: a live campaign every edge answers before anything is measured.
        let baseline = try campaignId(try adminCall("campaign.create", fields("adload baseline", priority: 90)))
        defer { _ = try? adminCall("campaign.expire", idParams(baseline)) }
        try awaitAnswers(probes, timeout: timeout, step: "edges answering the baseline campaign \(baseline)", app: configuration.app) { $0 == baseline }
        log("every edge answers the baseline campaign \(baseline) of app \(configuration.app)")

        var forceDelays: [Double] = [], expireDelays: [Double] = [], adminDelays: [Double] = []
        var forceApplied: [Double] = [], expireApplied: [Double] = [], appliedUnknown = 0, appliedChecked = 0
        var appliedOutside: [String] = [], bursts: [Double] = []
        var early = 0
        var worst: [String: Double] = [:]
        var rounds: [PropagationRound] = []
        for round in 1...configuration.repeats {
            // A low-priority campaign that no edge shows until it is forced; edges must have it first.
            let created = try adminCall("campaign.create", fields("adload probe \(round)", priority: 0))
            let probe = try campaignId(created)
            guard let createdSeq = created["seq"]?.intValue else { throw PropagationError.admin("campaign.create gave no seq") }
            try awaitSeq(edges, Int64(createdSeq), timeout: timeout)

            for (op, shows) in [("campaign.force", true), ("campaign.expire", false)] {
                if configuration.stepPause > 0 { usleep(UInt32(configuration.stepPause * 1e6)) }
                let measured = try measure(admin: admin, method: op, params: idParams(probe), edges: fleet, timeout: timeout,
                                           interval: configuration.probeInterval, from: configuration.probeFrom,
                                           spread: configuration.spreadFirstProbes,
                                           app: configuration.app) { shown in shows ? shown == probe : shown != probe }
                adminDelays.append(measured.admin)
                bursts.append(measured.burst)
                early += measured.early
                for (position, delay) in measured.delays.enumerated() {
                    let endpoint = configuration.edges[probed[position]]
                    worst[endpoint] = max(worst[endpoint] ?? 0, round3(delay * 1000))
                }
                if shows { forceDelays += measured.delays } else { expireDelays += measured.delays }
                // When each edge applied it, by its own clock: asked once every edge probed shows it, so the questions
                // add no load to the step measured (an edge not probed is asked until it has applied it).
                var bounds = [Bounds](repeating: Bounds(), count: edges.count)
                for (position, index) in probed.enumerated() { bounds[index] = measured.bounds[position] }
                let applied = try appliedDelays(edges, seq: measured.seq, answered: measured.answered, bounds: bounds, timeout: timeout)
                appliedUnknown += applied.unknown
                appliedChecked += applied.checked
                appliedOutside += applied.outside.map { "\(op) \(probe) at \($0)" }
                if shows { forceApplied += applied.delays } else { expireApplied += applied.delays }
                // The round's median and last edge, as the run's table ranks them.
                let roundDelays = DelayStatistics(measured.delays)
                rounds.append(PropagationRound(round: round, step: shows ? "force" : "expire", adminMilliseconds: round3(measured.admin * 1000),
                                               p50Milliseconds: roundDelays.p50Milliseconds, maxMilliseconds: roundDelays.maxMilliseconds))
                log(String(format: "round %d %@ %lld: admin %.2f ms, edges p50 %.2f ms, max %.2f ms", round, op, probe,
                           measured.admin * 1000, roundDelays.p50Milliseconds, roundDelays.maxMilliseconds))
            }
        }
        return PropagationResult(edges: edges.count, probedEdges: probed.count, repeats: configuration.repeats, app: configuration.app,
                                 probeIntervalSeconds: configuration.probeInterval, probeFrom: configuration.probeFrom.rawValue,
                                 probeOver: configuration.probeOver.rawValue, probesInFlight: configuration.probesInFlight,
                                 force: DelayStatistics(forceDelays), expire: DelayStatistics(expireDelays),
                                 all: DelayStatistics(forceDelays + expireDelays), admin: DelayStatistics(adminDelays),
                                 beforeAdminAnswer: early, worstByEdge: worst, rounds: rounds,
                                 forceApplied: DelayStatistics(forceApplied), expireApplied: DelayStatistics(expireApplied),
                                 appliedUnknown: appliedUnknown, appliedChecked: appliedChecked, appliedOutsideProbes: appliedOutside,
                                 firstProbes: DelayStatistics(bursts), spreadFirstProbes: configuration.spreadFirstProbes,
                                 stepPauseSeconds: configuration.stepPause)
    }

    /// The launch query each edge is probed with.
    private static func probeQuery(app: String, edge: Int) -> JSONValue {
        [
            "app": .string(app), "platform": "ios", "appVersion": "1.0.0", "deviceId": .string("adload-probe-\(edge)"),
            "screen": ["width": 1080, "height": 1920],
        ]
    }

    /// The campaign a launch answer shows (nil for none).
    private static func shown(_ result: JSONValue, _ endpoint: String) throws -> Int64? {
        guard let answer = result.objectValue, let hasAd = answer["hasAd"]?.boolValue else {
            throw PropagationError.edge(endpoint, "launch.query answered something that is not a launch answer")
        }
        return hasAd ? answer["id"]?.intValue.map(Int64.init) : nil
    }

    /// Sends an admin call and probes every edge, from the call or from its answer, until each shows what `satisfied`
    /// wants: the next query to an edge `interval` after the last was sent, once fewer than the fleet's ``ProbeFleet/inFlight``
    /// are pending there (with 1, only after the last one's answer came). The first queries go to every edge at once,
    /// or with `spread`, edge i's at i/N of `interval`.
    private static func measure(admin: CallLine, method: String, params: JSONValue, edges: any ProbeFleet, timeout: Double, interval: Double,
                                from start: PropagationConfiguration.ProbeStart, spread: Bool, app: String,
                                satisfied: (Int64?) -> Bool) throws -> Measured {
        var poller = Poller()
        poller.add(admin.socket)
        edges.add(to: &poller)
        // Replies still to come from the step before are not this step's.
        edges.forget()
        let endpoints = edges.endpoints
        let step = UInt64(interval * 1e9)
        let sent = monotonicNanoseconds()
        try admin.send(method, params)
        var lastSent = [UInt64](repeating: sent, count: endpoints.count)
        // What each edge's probes tell of when it applied the change, by the wall clock.
        var bounds = [Bounds](repeating: Bounds(), count: endpoints.count)
        // Edges that do not show the change yet and may take another query, when its time comes.
        var waiting = Set<Int>()
        // When the step's probes began, the edges not sent their first yet, and how long after the beginning the last
        // edge's first left.
        var probesBegan: UInt64 = 0
        var unprobed = [Bool](repeating: true, count: endpoints.count), unprobedCount = endpoints.count
        var burst: Double = 0
        func probe(_ index: Int, at now: UInt64) throws {
            try edges.send(index, "launch.query", probeQuery(app: app, edge: index))
            lastSent[index] = now
            if edges.pending(index) < edges.inFlight { waiting.insert(index) } else { waiting.remove(index) }
            if unprobed[index] {
                unprobed[index] = false
                unprobedCount -= 1
                if unprobedCount == 0 { burst = Double(monotonicNanoseconds() - probesBegan) / 1e9 }
            }
        }
        func probeAll() throws {
            probesBegan = monotonicNanoseconds()
            if spread {
                // Edge i's first query is due at i/N of an interval: as if its last had gone an interval before that.
                for index in endpoints.indices {
                    lastSent[index] = probesBegan &+ UInt64(index) * step / UInt64(endpoints.count) &- step
                    waiting.insert(index)
                }
            } else {
                for index in endpoints.indices { try probe(index, at: monotonicNanoseconds()) }
            }
        }
        if start == .call { try probeAll() }
        // The admin answer: when it came (monotonic, and by the wall clock edges' `appliedAt` is read against) and its seq.
        var answered: (at: UInt64, wall: Timestamp, seq: Int64?)?
        var seenAt = [UInt64?](repeating: nil, count: endpoints.count)
        var remaining = endpoints.count
        let deadline = sent + UInt64(timeout * 1e9)
        while answered == nil || remaining > 0 {
            var now = monotonicNanoseconds()
            guard now < deadline else {
                let late = endpoints.indices.filter { seenAt[$0] == nil }.map { endpoints[$0] }
                throw PropagationError.timedOut(answered == nil ? "\(method) (no admin answer)" : method, late)
            }
            var wait: UInt64 = 10_000_000
            for index in waiting {
                let due = lastSent[index] &+ step
                if due <= now {
                    try probe(index, at: now)
                } else {
                    wait = min(wait, due - now)
                }
            }
            guard try poller.poll(timeoutMilliseconds: Int((wait + 999_999) / 1_000_000)) > 0 else { continue }
            if poller.ready(0).contains(.readable) {
                do {
                    if let (result, _) = try admin.receive() {
                        answered = (monotonicNanoseconds(), Timestamp.now(), result.objectValue?["seq"]?.intValue.map(Int64.init))
                        if start == .answer { try probeAll() }
                    }
                } catch let PropagationError.edge(_, reason) {
                    throw PropagationError.admin("\(method): \(reason)")
                }
            }
            try edges.receive(after: poller) { index, sentAt, result in
                guard seenAt[index] == nil else { return }
                now = monotonicNanoseconds()
                if satisfied(try shown(result, endpoints[index])) {
                    seenAt[index] = now
                    bounds[index].seenBy = Timestamp.now()
                    remaining -= 1
                    waiting.remove(index)
                } else {
                    // Answered from the state before the change: the edge applied it after this query was sent.
                    bounds[index].notSentAt = max(bounds[index].notSentAt ?? sentAt, sentAt)
                    if now >= lastSent[index] &+ step {
                        try probe(index, at: now)
                    } else {
                        waiting.insert(index)
                    }
                }
            }
        }
        let answer = answered!
        var early = 0
        let delays = seenAt.map { seen -> Double in
            let seen = seen!
            if seen < answer.at { early += 1; return 0 }
            return Double(seen - answer.at) / 1e9
        }
        guard let seq = answer.seq else { throw PropagationError.admin("\(method) answered no seq") }
        return Measured(admin: Double(answer.at - sent) / 1e9, delays: delays, early: early, answered: answer.wall, seq: seq, bounds: bounds,
                        burst: burst)
    }

    /// A step measured: the admin call's time, each edge's delay (seconds, in the order of the edges), how many showed
    /// the change before the answer, the answer's wall-clock time and seq, and what each edge's probes tell of when it
    /// applied the change.
    private struct Measured {
        var admin: Double
        var delays: [Double]
        var early: Int
        var answered: Timestamp
        var seq: Int64
        var bounds: [Bounds]
        /// How long after the probes began the last edge's first probe left.
        var burst: Double
    }

    /// What one edge's probes tell of when it applied a change, by adload's wall clock (to the millisecond): after the
    /// send of the last probe it answered without the change (that answer came from the state before, later still),
    /// and before the first answer with the change came back. Nothing for an edge not probed.
    private struct Bounds {
        var notSentAt: Timestamp?
        var seenBy: Timestamp?

        /// Whether any probe answered, so that there is something to check a reading against.
        var probed: Bool { notSentAt != nil || seenBy != nil }

        /// Whether `applied` (the edge's own reading, to the millisecond) falls within the bounds: it is outside only
        /// when a whole millisecond separates them.
        func admit(_ applied: Timestamp) -> Bool {
            if let notSentAt, applied < notSentAt { return false }
            if let seenBy, applied > seenBy { return false }
            return true
        }
    }

    /// From the admin answer (`answered`, by adload's clock) to when each edge applied `seq` (by its own clock, the
    /// same one on one machine), in seconds, 0 when before; an edge still behind that seq is waited for
    /// (``status(of:reaching:deadline:timeout:)``; one not probed may be), and one that has moved past it since, or
    /// that does not say when, is counted in `unknown` instead. `checked` counts the readings set against the edge's probes, and `outside` names the edges
    /// whose reading its probes contradict (see ``Bounds``): on one machine, none.
    private static func appliedDelays(_ edges: [CallLine], seq: Int64, answered: Timestamp, bounds: [Bounds],
                                      timeout: Double) throws -> (delays: [Double], unknown: Int, checked: Int, outside: [String]) {
        var delays: [Double] = [], unknown = 0, checked = 0, outside: [String] = []
        let deadline = Date().addingTimeInterval(timeout)
        for (index, edge) in edges.enumerated() {
            let status = try status(of: edge, reaching: seq, deadline: deadline, timeout: timeout)
            guard status["seq"]?.intValue.map(Int64.init) == seq,
                  let text = status["appliedAt"]?.stringValue, let applied = Timestamp(rfc3339: text) else {
                unknown += 1
                continue
            }
            delays.append(max(0, answered.seconds(until: applied)))
            guard bounds[index].probed else { continue }
            checked += 1
            if !bounds[index].admit(applied) {
                outside.append("\(edge.endpoint): applied \(applied), probes \(bounds[index].notSentAt.map { "\($0)" } ?? "-") to \(bounds[index].seenBy.map { "\($0)" } ?? "-")")
            }
        }
        return (delays, unknown, checked, outside)
    }

    /// Waits until every edge's launch answer satisfies `wanted` (polling every few milliseconds).
    private static func awaitAnswers(_ edges: [any ProbeLine], timeout: Double, step: String, app: String, wanted: (Int64?) -> Bool) throws {
        let deadline = Date().addingTimeInterval(timeout)
        for (index, edge) in edges.enumerated() {
            while true {
                if try wanted(shown(edge.call("launch.query", probeQuery(app: app, edge: index), timeout: timeout), edge.endpoint)) { break }
                guard Date() < deadline else { throw PropagationError.timedOut(step, [edge.endpoint]) }
                usleep(5_000)
            }
        }
    }

    /// Waits until every edge has applied `seq` (edge.status).
    private static func awaitSeq(_ edges: [CallLine], _ seq: Int64, timeout: Double) throws {
        let deadline = Date().addingTimeInterval(timeout)
        for edge in edges { _ = try status(of: edge, reaching: seq, deadline: deadline, timeout: timeout) }
    }

    /// The edge's `edge.status` once its `seq` is `seq` or later, asked every 2 ms until then; fails at `deadline`.
    private static func status(of edge: CallLine, reaching seq: Int64, deadline: Date, timeout: Double) throws -> JSONValue {
        while true {
            let status = try edge.call("edge.status", [:], timeout: timeout)
            if let applied = status.objectValue?["seq"]?.intValue, applied >= seq { return status }
            guard Date() < deadline else { throw PropagationError.timedOut("edges applying seq \(seq)", [edge.endpoint]) }
            usleep(2_000)
        }
    }

    /// A PNG header of the given pixel size: enough for campaignd to read its type and size.
    static func probePNG(width: Int, height: Int) -> [UInt8] {
        CreativeInspector.pngHeader(width: width, height: height, trailer: Array("adload propagation probe".utf8))
    }
}
