import ArgumentParser
import Foundation
import LaunchAdAPI
import LaunchAdLoad
import LaunchAdRuntime

/// `adload writes`: admin write throughput and latency, through one campaignd or several.
struct Writes: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Create campaigns from several writers at once and measure admin write throughput and latency.",
        discussion: """
            Each writer has its own connection with one campaign.create in flight; --count writes are shared among
            --writers. A call not answered within --timeout counts as unanswered (it may still have committed). With
            a comma-separated --admin list, calls go to whichever campaignd is connected (for writes across a
            failover). Prints writes/s, latency percentiles and failures by reason; --json prints them with every
            answered seq. Exit status 3 when any write failed.

            Example:
              adload writes --admin tcp://127.0.0.1:7100 --writers 8 --count 4000 --creative SHA256
            """)

    @Option(help: "campaignd's admin endpoint, or several, comma-separated. [ADLOAD_ADMIN_ENDPOINT]")
    var admin = Environment.string("ADLOAD_ADMIN_ENDPOINT", default: DefaultEndpoints.campaignAdmin)
    @Option(help: "Concurrent writers.")
    var writers = 8
    @Option(help: "Writes in all.")
    var count = 1000
    @Option(help: "The sha256 of an uploaded creative the campaigns show.")
    var creative: String
    @Option(help: "App of the campaigns.")
    var app = "writes"
    @Option(help: "Seconds a write may take before it counts as unanswered.")
    var timeout = 5.0
    @Flag(help: "Print the result as JSON.")
    var json = false

    func validate() throws {
        guard (1...1024).contains(writers) else { throw ValidationError("--writers: must be 1 to 1024") }
        guard (1...10_000_000).contains(count) else { throw ValidationError("--count: must be 1 to 10000000") }
        guard count >= writers else { throw ValidationError("--count: must be at least --writers") }
        guard creative.count == 64, creative.allSatisfy({ $0.isHexDigit && !$0.isUppercase }) else {
            throw ValidationError("--creative: must be a sha256 (64 lowercase hexadecimal digits)")
        }
        guard !app.isEmpty else { throw ValidationError("--app: must not be empty") }
        guard timeout > 0, timeout <= 600 else { throw ValidationError("--timeout: must be above 0 and at most 600 seconds") }
    }

    func run() throws {
        var configuration = WritesRunner.Configuration(admin: admin, writers: writers, count: count, creative: creative)
        configuration.app = app
        configuration.timeout = timeout
        let result: WritesRunner.Result
        do {
            result = try WritesRunner.run(configuration)
        } catch {
            fail("\(error)")
        }
        if json {
            print(String(decoding: try JSONEncoder().encode(result), as: UTF8.self))
        } else {
            print("writes      \(result.answered) answered of \(result.attempted) by \(result.writers) writers in \(String(format: "%.2f", result.seconds)) s")
            print("throughput  \(String(format: "%.0f", result.writesPerSecond)) writes/s")
            print("latency     p50 \(String(format: "%.2f", result.p50Milliseconds)) ms  p90 \(String(format: "%.2f", result.p90Milliseconds)) ms  p99 \(String(format: "%.2f", result.p99Milliseconds)) ms  max \(String(format: "%.2f", result.maxMilliseconds)) ms")
            print("seqs        \(result.seqsUnique ? "each answered write has its own seq" : "SOME ANSWERED WRITES SHARE A SEQ")")
            for (reason, n) in result.failed.sorted(by: { $0.value > $1.value }) { print("failed      \(n)  \(reason)") }
        }
        if !result.failed.isEmpty || !result.seqsUnique { throw ExitCode(3) }
    }
}
