#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Histogram
import Locking
import ZeroMQ

/// Runs a load: builds the population, starts one thread per worker, shows progress, merges their counts.
public enum LoadRunner {
    /// Runs `configuration`; `onProgress` is called about once a second with (seconds since start, completed, errors).
    public static func run(_ configuration: LoadConfiguration,
                           onProgress: (@Sendable (_ elapsed: Double, _ completed: Int, _ errors: Int) -> Void)? = nil) throws -> LoadResult {
        try configuration.validate()
        let population = Population(devices: configuration.devices, apps: configuration.apps, seed: configuration.seed)
        let arena = TemplateArena(RequestTemplates(population: population))
        let context = try ZMQContext()
        defer { context.shutdown() }
        let progress = LoadProgress()
        let nonce = UInt64.random(in: 1...UInt64.max)

        let usageBefore = cpuSeconds()
        let begin = monotonicNanoseconds()
        let measureStart = begin + UInt64(configuration.warmup * 1e9)
        let measureEnd = measureStart + UInt64(configuration.duration * 1e9)

        let outcomes = Outcomes()
        let finished = DispatchGroup()
        let perThread = configuration.connections / configuration.threads
        let extra = configuration.connections % configuration.threads
        var lower = 0
        for index in 0..<configuration.threads {
            let count = perThread + (index < extra ? 1 : 0)
            let range = lower..<(lower + count)
            lower += count
            finished.enter()
            let thread = Thread {
                let outcome: Result<LoadWorker.Totals, any Error>
                do {
                    let worker = try LoadWorker(index: index, connections: range, configuration: configuration, arena: arena,
                                                population: population, progress: progress, context: context, runNonce: nonce)
                    try worker.run(measureStart: measureStart, measureEnd: measureEnd)
                    outcome = .success(worker.totals)
                } catch {
                    outcome = .failure(error)
                }
                outcomes.results.withLock { $0[index] = outcome }
                finished.leave()
            }
            thread.name = "adload-\(index)"
            thread.start()
        }
        while finished.wait(timeout: .now() + .seconds(1)) == .timedOut {
            let elapsed = Double(monotonicNanoseconds() - begin) / 1e9
            onProgress?(elapsed, progress.completed.load(ordering: .relaxed), progress.errors.load(ordering: .relaxed))
        }
        let usageAfter = cpuSeconds()

        var merged = LoadWorker.Totals()
        let all = outcomes.results.withLock { $0 }
        for index in 0..<configuration.threads {
            guard let outcome = all[index] else { continue }
            let totals = try outcome.get()
            merged.histogram.add(totals.histogram)
            merged.completed += totals.completed
            merged.ok += totals.ok
            merged.withAd += totals.withAd
            merged.errorsByCode.merge(totals.errorsByCode, uniquingKeysWith: +)
            merged.invalid += totals.invalid
            merged.timeouts += totals.timeouts
            merged.late += totals.late
            merged.sendFailures += totals.sendFailures
            merged.lastReply = max(merged.lastReply, totals.lastReply)
        }
        var windowEnd = measureEnd
        if configuration.requests != nil, merged.lastReply > measureStart { windowEnd = min(measureEnd, merged.lastReply) }
        let seconds = Double(windowEnd - measureStart) / 1e9
        let histogram = merged.histogram
        func micro(_ nanoseconds: UInt64) -> Double { (Double(nanoseconds) / 1000 * 100).rounded() / 100 }
        let samples = Int(histogram.totalCount)
        return LoadResult(
            endpoint: configuration.endpoint, mode: configuration.mode, connections: configuration.connections,
            window: configuration.window, threads: configuration.threads, targetRate: configuration.rate,
            mix: configuration.mix.description, devices: configuration.devices, seed: configuration.seed,
            warmupSeconds: configuration.warmup, seconds: (seconds * 1000).rounded() / 1000, completed: merged.completed,
            requestsPerSecond: seconds > 0 ? (Double(merged.completed) / seconds).rounded() : 0,
            ok: merged.ok, withAd: merged.withAd,
            latency: LoadResult.Latency(
                samples: samples, meanMicroseconds: samples > 0 ? (histogram.mean / 1000 * 100).rounded() / 100 : 0,
                p50Microseconds: samples > 0 ? micro(histogram.valueAtPercentile(50)) : 0,
                p90Microseconds: samples > 0 ? micro(histogram.valueAtPercentile(90)) : 0,
                p99Microseconds: samples > 0 ? micro(histogram.valueAtPercentile(99)) : 0,
                p999Microseconds: samples > 0 ? micro(histogram.valueAtPercentile(99.9)) : 0,
                maxMicroseconds: samples > 0 ? micro(histogram.max) : 0),
            errors: LoadResult.Errors(
                byCode: Dictionary(uniqueKeysWithValues: merged.errorsByCode.map { (String($0.key), $0.value) }),
                timeouts: merged.timeouts, invalid: merged.invalid, late: merged.late, sendFailures: merged.sendFailures),
            clientCPUSeconds: ((usageAfter - usageBefore) * 1000).rounded() / 1000)
    }

    private final class Outcomes: Sendable {
        let results = Locked<[Int: Result<LoadWorker.Totals, any Error>]>([:])
    }

    private static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
            + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    }
}
