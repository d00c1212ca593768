#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import Foundation
import LaunchAdAPI
import LaunchAdLoad
import LaunchAdRuntime
import ZeroMQ

/// `adload run` (the default): a load on a deliveryd client endpoint.
struct Run: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "run", abstract: "Load a deliveryd client endpoint (the default command).")

    @Option(help: "deliveryd's client endpoint. [ADLOAD_ENDPOINT]")
    var endpoint = Environment.string("ADLOAD_ENDPOINT", default: DefaultEndpoints.edgeClient)
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
