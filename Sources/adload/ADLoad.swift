#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import Foundation
import JSONRPC
import LaunchAdLoad
import LaunchAdRuntime
import ZeroMQ

@main
struct ADLoad: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "adload",
        abstract: "Load generator for deliveryd's client socket, and the measure of force/expire propagation.",
        discussion: """
            adload --endpoint E runs a load: N DEALER connections, each with K requests in flight (closed loop), or a
            fixed total rate (open loop, --rate; latency counted from each request's intended send time, so a stall
            shows). Requests are launch queries (and, with --mix, prefetches and reports) from a seeded population of
            devices. It prints throughput, latency percentiles from an HDR histogram and errors by JSON-RPC code;
            --json prints the same for scripts. Exit status 3 when any request failed or timed out.

            adload propagation --admin E --edge E1 --edge E2 ... forces and expires campaigns through campaignd
            and measures when each edge's launch answer shows it.
            """,
        subcommands: [Run.self, Propagation.self],
        defaultSubcommand: Run.self
    )
}

/// Prints `message` as adload's one-line error and exits with `status`.
func fail(_ message: String, status: Int32 = 1) -> Never {
    FileHandle.standardError.write(Data("adload: \(message)\n".utf8))
    Glibc.exit(status)
}

/// JSON for scripts: sorted keys, so the output is stable.
func printJSON(_ value: some Encodable) {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
    do {
        print(String(decoding: try encoder.encode(value), as: UTF8.self))
    } catch {
        fail("cannot encode the result: \(error)")
    }
}

func grouped(_ value: Int) -> String {
    let digits = String(value)
    var out = ""
    for (index, character) in digits.enumerated() {
        if index > 0, character != "-", (digits.count - index) % 3 == 0 { out.append(",") }
        out.append(character)
    }
    return out
}

/// A server public key given as text or as `@FILE`.
func readServerKey(_ text: String) throws -> String {
    var key = text
    if text.hasPrefix("@") {
        guard let contents = FileManager.default.contents(atPath: String(text.dropFirst())) else {
            throw ValidationError("cannot read the key file \(text.dropFirst())")
        }
        key = String(decoding: contents, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
    guard CurveKey.isValid(key) else { throw ValidationError("--server-key is not a 40-character Z85 CURVE public key") }
    return key
}

struct Run: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "run", abstract: "Load a deliveryd client endpoint (the default command).")

    @Option(help: "deliveryd's client endpoint. [ADLOAD_ENDPOINT]")
    var endpoint = Environment.string("ADLOAD_ENDPOINT", default: "tcp://127.0.0.1:7200")
    @Option(help: "Seconds measured, after the warm-up.")
    var duration = 10.0
    @Option(help: "Stop after this many measured requests (the duration stays an upper bound).")
    var requests: Int?
    @Option(help: "Seconds of load before measuring (not counted).")
    var warmup = 1.0
    @Option(help: "DEALER connections.")
    var connections = 4
    @Option(help: "Requests in flight per connection (closed loop); with --rate, the most in flight per connection.")
    var window = 64
    @Option(help: "Requests per second in total: an open loop instead of a closed one.")
    var rate: Double?
    @Option(help: "Simulated devices (device ids d-0 ... d-N-1).")
    var devices = 10_000
    @Option(help: "Comma-separated app names the devices run.")
    var apps = "shop"
    @Option(help: "Seed of the population and the request sequence.")
    var seed: UInt64 = 1
    @Option(help: "Share of launch queries that are hot starts (0...1).")
    var hotShare = 0.2
    @Option(help: "Methods by share in percent, e.g. query=90,prefetch=5,report=5.")
    var mix = "query=100"
    @Option(help: "Seconds after which a request without a reply counts as a timeout.")
    var timeout = 5.0
    @Option(help: "Threads driving the connections.")
    var threads = 1
    @Option(help: "CURVE: the server's public key (Z85) or @FILE; a client key pair is generated.")
    var serverKey: String?
    @Flag(help: "Print the result as JSON.")
    var json = false
    @Flag(help: "No live progress line.")
    var quiet = false

    func run() throws {
        var configuration = LoadConfiguration(endpoint: endpoint)
        configuration.duration = duration
        configuration.requests = requests
        configuration.warmup = warmup
        configuration.connections = connections
        configuration.window = window
        configuration.rate = rate
        configuration.devices = devices
        configuration.apps = apps.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        configuration.seed = seed
        configuration.hotShare = hotShare
        configuration.timeout = timeout
        configuration.threads = threads
        do {
            configuration.mix = try RequestMix(parsing: mix)
            if let serverKey { configuration.curve = (try readServerKey(serverKey), try CurveKeyPair.generate()) }
            try configuration.validate()
        } catch let error as ValidationError {
            throw error
        } catch {
            throw ValidationError("\(error)")
        }
        let live = !quiet && isatty(STDERR_FILENO) != 0
        let total = warmup + duration
        let warm = warmup
        let result: LoadResult
        do {
            result = try LoadRunner.run(configuration) { elapsed, completed, errors in
                guard live else { return }
                let phase = elapsed < warm ? "warm-up" : "measuring"
                let line = "\r\(phase) \(Int(min(elapsed, total)))/\(Int(total.rounded(.up))) s  \(grouped(completed)) replies  \(grouped(errors)) errors "
                FileHandle.standardError.write(Data(line.utf8))
            }
        } catch {
            fail("\(error)")
        }
        if live { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
        if json {
            printJSON(result)
        } else {
            printTable(result)
        }
        if result.completed == 0 { fail("no replies from \(endpoint) in the measured window", status: 3) }
        if result.errors.total > 0 { throw ExitCode(3) }
    }

    private func printTable(_ result: LoadResult) {
        let shape = result.mode == "closed"
            ? "\(result.connections) connections × \(result.window) in flight (closed loop)"
            : "\(result.connections) connections, \(grouped(Int(result.targetRate ?? 0))) req/s target (open loop, at most \(result.window) in flight each)"
        print("adload \(result.endpoint): \(shape), \(result.threads) thread\(result.threads == 1 ? "" : "s")")
        print("  population  \(grouped(result.devices)) devices, seed \(result.seed), mix \(result.mix)")
        print("  throughput  \(grouped(result.completed)) replies in \(fixed(result.seconds, 3)) s = \(grouped(Int(result.requestsPerSecond))) req/s"
            + " (after \(fixed(result.warmupSeconds, 1)) s warm-up; client CPU \(fixed(result.clientCPUSeconds, 2)) s)")
        let latency = result.latency
        print("  latency µs  p50 \(fixed(latency.p50Microseconds, 1))  p90 \(fixed(latency.p90Microseconds, 1))"
            + "  p99 \(fixed(latency.p99Microseconds, 1))  p99.9 \(fixed(latency.p999Microseconds, 1))"
            + "  max \(fixed(latency.maxMicroseconds, 1))  mean \(fixed(latency.meanMicroseconds, 1))  (\(grouped(latency.samples)) samples)")
        let adShare = result.ok > 0 ? Double(result.withAd) / Double(result.ok) * 100 : 0
        print("  answers     \(grouped(result.ok)) ok (\(fixed(adShare, 1))% with an ad)")
        let errors = result.errors
        var parts = errors.byCode.sorted { $0.key < $1.key }.map { "\($0.key) × \(grouped($0.value))" }
        if errors.timeouts > 0 { parts.append("timeouts × \(grouped(errors.timeouts))") }
        if errors.invalid > 0 { parts.append("invalid replies × \(grouped(errors.invalid))") }
        if errors.late > 0 { parts.append("late replies × \(grouped(errors.late))") }
        if errors.sendFailures > 0 { parts.append("send failures × \(grouped(errors.sendFailures))") }
        print("  errors      \(parts.isEmpty ? "none" : parts.joined(separator: ", "))")
    }
}

/// `value` with `digits` decimals.
func fixed(_ value: Double, _ digits: Int) -> String {
    String(format: "%.\(digits)f", value)
}

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
    var admin = Environment.string("ADLOAD_ADMIN_ENDPOINT", default: "tcp://127.0.0.1:7100")
    @Option(name: .customLong("edge"), help: "An edge's client endpoint (repeat for each edge).")
    var edges: [String] = []
    @Option(help: "A file with one edge client endpoint per line.")
    var edgesFile: String?
    @Option(help: "Force/expire rounds.")
    var repeats = 10
    @Option(help: "App name of the measuring campaigns (default: a fresh one).")
    var app: String?
    @Option(help: "Seconds an edge may take before the run fails.")
    var timeout = 10.0
    @Option(help: "Milliseconds between two launch queries to an edge that does not show the change yet (0: no pause); the delays' resolution.")
    var probeInterval = 1.0
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
        var configuration = PropagationConfiguration(adminEndpoint: admin, edges: endpoints)
        if let app { configuration.app = app }
        configuration.repeats = repeats
        configuration.timeout = timeout
        guard probeInterval >= 0, probeInterval <= 1000 else { throw ValidationError("--probe-interval: must be 0 to 1000 milliseconds") }
        configuration.probeInterval = probeInterval / 1000
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
        print("propagation over \(result.edges) edge\(result.edges == 1 ? "" : "s"), \(result.repeats) rounds (app \(result.app)), ms from the admin answer, edges probed every \(fixed(result.probeIntervalSeconds * 1000, 1)) ms:")
        print("  step     samples      p50      p90      p99      max     mean")
        for (name, stats) in [("force", result.force), ("expire", result.expire), ("both", result.all), ("admin", result.admin)] {
            let columns = [stats.p50Milliseconds, stats.p90Milliseconds, stats.p99Milliseconds, stats.maxMilliseconds, stats.meanMilliseconds]
                .map { fixed($0, 2).leftPadded(to: 8) }.joined(separator: " ")
            print("  \(name.padding(toLength: 7, withPad: " ", startingAt: 0)) \(String(stats.samples).leftPadded(to: 8)) \(columns)")
        }
        if result.beforeAdminAnswer > 0 {
            print("  \(result.beforeAdminAnswer) edge answers showed the change before the admin answer arrived (counted as 0 ms)")
        }
        if let slowest = result.worstByEdge.max(by: { $0.value < $1.value }) {
            print("  slowest edge: \(slowest.key) (\(fixed(slowest.value, 2)) ms at worst)")
        }
    }
}

extension String {
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
