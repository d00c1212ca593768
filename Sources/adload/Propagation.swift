import ArgumentParser
import Foundation
import LaunchAdAPI
import LaunchAdLoad
import LaunchAdRuntime

/// `adload propagation`: how fast a force and an expire reach the edges.
struct Propagation: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Measure how fast a force and an expire reach every edge's launch answers.",
        discussion: """
            Uploads a small creative, creates a baseline campaign for a fresh app (--app) and waits until every edge
            answers it; then, --repeats times: creates a low-priority campaign, waits until every edge applied it,
            forces it and measures, from campaignd's answer, when each edge's launch answer shows it; expires it and
            measures when each edge stops showing it. Prints percentiles over edges and repeats.
            """
    )

    @Option(help: "campaignd's admin endpoint. [ADLOAD_ADMIN_ENDPOINT]")
    var admin = Environment.string("ADLOAD_ADMIN_ENDPOINT", default: DefaultEndpoints.campaignAdmin)
    @Option(name: .customLong("edge"), help: "An edge's client endpoint, then (after a space) its HTTP address HOST:PORT if known (repeat for each edge).")
    var edges: [String] = []
    @Option(help: "A file with one edge per line, as --edge takes it.")
    var edgesFile: String?
    @Option(help: "Force/expire rounds.")
    var repeats = 10
    @Option(help: "App name of the measuring campaigns (default: a fresh one).")
    var app: String?
    @Option(help: "Seconds an edge may take before the run fails.")
    var timeout = 10.0
    @Option(help: "Milliseconds between two launch queries to an edge that does not show the change yet (0: no pause); the delays' resolution.")
    var probeInterval = 1.0
    @Option(help: "When each step's probes begin: at the admin answer (answer), which every delay is counted from, or at the admin call (call), which also counts the edges that showed the change before the answer.")
    var probeFrom = PropagationConfiguration.ProbeStart.answer
    @Option(help: "What the probes go through: each edge's client socket (zmq) or its HTTP POST /rpc (http), which needs every edge's HTTP address.")
    var probeOver = PropagationConfiguration.ProbeTransport.zmq
    @Option(help: "Launch queries an edge may have in flight: 1 sends the next one after the last one's answer (and --probe-interval); more send one every --probe-interval whatever came back, as phones launching on their own would, up to this many unanswered (over zmq).")
    var probesInFlight = 1
    @Flag(help: "Spread each step's first probes over --probe-interval (edge i's at i/N of it) instead of sending one to every edge at once.")
    var spreadFirstProbes = false
    @Option(help: "Milliseconds to wait before each force and expire (0 to 60000): steps further apart than the edges' --state-save-delay keep one step's saves and acknowledgements out of the next one's window.")
    var stepPause = 0.0
    @Option(help: "Probe this many of the edges, drawn by a seeded shuffle (the same ones each step and run), not every one: every edge still applies each change and is asked when it did (the applied rows); the seen rows are the sample's. With hundreds of edges on a few cores, probes to all of them compete for the CPU with the change's own work.")
    var probeSample: Int?
    @Option(help: "CURVE keys for the admin socket: adload.key (or adctl.key) and campaignd.pub. [ADLOAD_KEYS_DIR]")
    var keysDir: String?
    @Flag(help: "Print the result as JSON.")
    var json = false

    func run() throws {
        var endpoints = edges
        if let edgesFile {
            guard let contents = FileManager.default.contents(atPath: edgesFile) else { throw ValidationError("cannot read --edges-file \(edgesFile)") }
            endpoints += String(decoding: contents, as: UTF8.self).split(whereSeparator: \.isNewline)
                .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty && !$0.hasPrefix("#") }
        }
        // Each edge: its client endpoint, and its HTTP address when one follows.
        var clients: [String] = [], addresses: [HTTPAddress?] = []
        for line in endpoints {
            let fields = line.split(whereSeparator: \.isWhitespace)
            guard (1...2).contains(fields.count) else {
                throw ValidationError("--edge: expected a client endpoint and at most an HTTP address, got \"\(line)\"")
            }
            clients.append(String(fields[0]))
            if fields.count == 2 {
                do {
                    let (host, port) = try HTTPEndpoint.parse(String(fields[1]))
                    guard port > 0 else { throw ValidationError("--edge: the HTTP address \(fields[1]) needs a port") }
                    addresses.append(HTTPAddress(host: host, port: port))
                } catch let error as ValidationError {
                    throw error
                } catch {
                    throw ValidationError("--edge: \(error)")
                }
            } else {
                addresses.append(nil)
            }
        }
        var configuration = PropagationConfiguration(adminEndpoint: admin, edges: clients)
        configuration.edgeHTTP = addresses
        configuration.probeOver = probeOver
        if let app { configuration.app = app }
        configuration.repeats = repeats
        configuration.timeout = timeout
        guard probeInterval >= 0, probeInterval <= 1000 else { throw ValidationError("--probe-interval: must be 0 to 1000 milliseconds") }
        configuration.probeInterval = probeInterval / 1000
        configuration.probeFrom = probeFrom
        configuration.probesInFlight = probesInFlight
        configuration.spreadFirstProbes = spreadFirstProbes
        configuration.stepPause = stepPause / 1000
        configuration.probeSample = probeSample
        do {
            if let keysPath = keysDir ?? Environment.value("ADLOAD_KEYS_DIR") {
                let keys = try KeysDirectory(path: keysPath)
                let own = FileManager.default.fileExists(atPath: keys.url.appendingPathComponent("adload.key").path) ? "adload" : "adctl"
                configuration.adminCurve = (try keys.publicKey("campaignd"), try keys.keyPair(own))
            }
            try configuration.validate()
        } catch {
            throw ValidationError("\(error)")
        }
        let quietly = json
        let result: PropagationResult
        do {
            result = try PropagationRunner.run(configuration) { line in
                if !quietly { FileHandle.standardError.write(Data("\(line)\n".utf8)) }
            }
        } catch {
            fail("\(error)")
        }
        if json {
            printJSON(result)
            return
        }
        print("propagation over \(result.edges) edge\(result.edges == 1 ? "" : "s"), \(result.repeats) rounds (app \(result.app)), ms from the admin answer, \(result.probedEdges == result.edges ? "edges" : "\(result.probedEdges) of them (a sample)") probed every \(fixed(result.probeIntervalSeconds * 1000, 1)) ms from the admin \(result.probeFrom), over \(result.probeOver), at most \(result.probesInFlight) in flight an edge\(result.spreadFirstProbes ? ", the first ones spread" : ""):")
        print("  step            samples      p50      p90      p99      max     mean")
        for (name, stats) in [("force", result.force), ("expire", result.expire), ("both", result.all), ("admin", result.admin),
                              ("force applied", result.forceApplied), ("expire applied", result.expireApplied)] {
            let columns = [stats.p50Milliseconds, stats.p90Milliseconds, stats.p99Milliseconds, stats.maxMilliseconds, stats.meanMilliseconds]
                .map { fixed($0, 2).leftPadded(to: 8) }.joined(separator: " ")
            print("  \(name.padding(toLength: 14, withPad: " ", startingAt: 0)) \(String(stats.samples).leftPadded(to: 8)) \(columns)")
        }
        if result.appliedUnknown > 0 {
            print("  \(result.appliedUnknown) steps at edges that did not say when they applied them (not in the applied rows)")
        }
        print("  applied times checked against the edges' probes: \(result.appliedChecked), outside them: \(result.appliedOutsideProbes.count)")
        for line in result.appliedOutsideProbes.prefix(5) { print("    \(line)") }
        if result.beforeAdminAnswer > 0 {
            print("  \(result.beforeAdminAnswer) edge answers showed the change before the admin answer arrived (counted as 0 ms)")
        }
        if let slowest = result.worstByEdge.max(by: { $0.value < $1.value }) {
            print("  slowest edge: \(slowest.key) (\(fixed(slowest.value, 2)) ms at worst)")
        }
    }
}

extension PropagationConfiguration.ProbeTransport: ExpressibleByArgument {}
extension PropagationConfiguration.ProbeStart: ExpressibleByArgument {}
