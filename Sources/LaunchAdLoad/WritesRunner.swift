import Foundation
import Histogram
import JSONRPC
import Locking
import ZeroMQ

/// `adload writes`: admin writes (campaign.create) from several writers at once, each with one call in flight, through
/// one campaignd or a list of them; what was answered, how fast, and what failed. For the admin write benchmark of
/// each store engine and for writes under a failover.
public enum WritesRunner {
    public struct Configuration: Sendable {
        public var admin: String
        public var writers: Int
        /// Writes in all, shared among the writers.
        public var count: Int
        public var creative: String
        public var app = "writes"
        /// Seconds a call may take before it counts as unanswered.
        public var timeout = 5.0

        public init(admin: String, writers: Int, count: Int, creative: String) {
            self.admin = admin
            self.writers = writers
            self.count = count
            self.creative = creative
        }
    }

    public struct Result: Codable, Sendable {
        public var writers: Int
        public var attempted: Int
        public var answered: Int
        /// Calls that failed, by reason (an error's message and code, or `timeout`).
        public var failed: [String: Int]
        public var seconds: Double
        public var writesPerSecond: Double
        public var p50Milliseconds: Double
        public var p90Milliseconds: Double
        public var p99Milliseconds: Double
        public var maxMilliseconds: Double
        /// The seq of every answered write, ascending.
        public var seqs: [Int64]
        /// Whether no two answered writes got the same seq.
        public var seqsUnique: Bool
    }

    private struct Totals: Sendable {
        var histogram = Histogram<UInt64>(lowestDiscernibleValue: 1, highestTrackableValue: 600_000_000, numberOfSignificantValueDigits: .three)
        var seqs: [Int64] = []
        var failed: [String: Int] = [:]
        var attempted = 0
    }

    public static func run(_ configuration: Configuration) throws -> Result {
        let context = try ZMQContext()
        defer { context.shutdown() }
        let formatter = ISO8601DateFormatter()
        let startsAt = formatter.string(from: Date().addingTimeInterval(-60))
        let endsAt = formatter.string(from: Date().addingTimeInterval(86_400))
        let totals = Locked<[Totals]>([])
        let setupErrors = Locked<[String]>([])
        let finished = DispatchGroup()
        let begin = ContinuousClock.now
        for writer in 0..<configuration.writers {
            let share = configuration.count / configuration.writers + (writer < configuration.count % configuration.writers ? 1 : 0)
            finished.enter()
            let thread = Thread {
                defer { finished.leave() }
                var mine = Totals()
                do {
                    let line = try CallLine(context, endpoint: configuration.admin, curve: nil)
                    for index in 0..<share {
                        let fields: JSONValue = [
                            "name": .string("w\(writer)-\(index)"), "app": .string(configuration.app), "startsAt": .string(startsAt),
                            "endsAt": .string(endsAt), "creatives": [["sha256": .string(configuration.creative)]],
                        ]
                        mine.attempted += 1
                        let start = ContinuousClock.now
                        do {
                            let result = try line.call("campaign.create", fields, timeout: configuration.timeout)
                            let elapsed = ContinuousClock.now - start
                            mine.histogram.record(UInt64(max(1, elapsed.components.seconds * 1_000_000 + elapsed.components.attoseconds / 1_000_000_000_000)))
                            if let seq = result["seq"]?.intValue { mine.seqs.append(Int64(seq)) }
                        } catch PropagationError.timedOut {
                            mine.failed["timeout", default: 0] += 1
                        } catch let PropagationError.edge(_, reason) {
                            mine.failed[reason, default: 0] += 1
                        } catch {
                            mine.failed["\(error)", default: 0] += 1
                        }
                    }
                } catch {
                    setupErrors.withLock { $0.append("\(error)") }
                }
                totals.withLock { $0.append(mine) }
            }
            thread.name = "adload-writer-\(writer)"
            thread.start()
        }
        finished.wait()
        let elapsed = ContinuousClock.now - begin
        if let first = setupErrors.withLock({ $0.first }) { throw PropagationError.admin(first) }
        var merged = Totals()
        for part in totals.withLock({ $0 }) {
            merged.histogram.add(part.histogram)
            merged.seqs += part.seqs
            merged.failed.merge(part.failed, uniquingKeysWith: +)
            merged.attempted += part.attempted
        }
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let seqs = merged.seqs.sorted()
        func ms(_ percentile: Double) -> Double { seqs.isEmpty ? 0 : Double(merged.histogram.valueAtPercentile(percentile)) / 1000 }
        return Result(writers: configuration.writers, attempted: merged.attempted, answered: seqs.count, failed: merged.failed,
                      seconds: seconds, writesPerSecond: Double(seqs.count) / max(seconds, 1e-9),
                      p50Milliseconds: ms(50), p90Milliseconds: ms(90), p99Milliseconds: ms(99),
                      maxMilliseconds: seqs.isEmpty ? 0 : Double(merged.histogram.max) / 1000,
                      seqs: seqs, seqsUnique: Set(seqs).count == seqs.count)
    }
}
