import Foundation
import LaunchAdRuntime
import Prometheus
import Testing

@Suite("Latency histograms", .timeLimit(.minutes(1)))
struct LatencyHistogramTests {
    static var descriptor: MetricNameDescriptor {
        MetricNameDescriptor(namespace: "launchad", subsystem: "test", metricName: "call_duration", unitName: "seconds",
                             helpText: "Time of a call.")
    }

    @Test("observations land in the first bucket whose bound they do not pass; buckets, sum and count as Prometheus writes them")
    func buckets() {
        let family = LatencyHistograms(Self.descriptor, bounds: [.microseconds(10), .microseconds(100), .milliseconds(1)])
        #expect(family.text.isEmpty)
        let query = family.histogram(labels: [("method", "launch.query")])
        for nanoseconds: Int64 in [0, 10_000, 10_001, 99_999, 100_000, 1_000_000, 1_000_001, 5_000_000_000, -7] {
            query.record(nanoseconds: nanoseconds)
        }
        _ = family.histogram(labels: [("method", #"odd "name"\"#)])
        #expect(query.totals.count == 9)
        #expect(query.totals.nanoseconds == 10_000 + 10_001 + 99_999 + 100_000 + 1_000_000 + 1_000_001 + 5_000_000_000)
        let lines = family.text.split(separator: "\n").map(String.init)
        #expect(lines == [
            "# HELP launchad_test_call_duration_seconds Time of a call.",
            "# TYPE launchad_test_call_duration_seconds histogram",
            #"launchad_test_call_duration_seconds_bucket{method="launch.query",le="0.00001"} 3"#,
            #"launchad_test_call_duration_seconds_bucket{method="launch.query",le="0.0001"} 6"#,
            #"launchad_test_call_duration_seconds_bucket{method="launch.query",le="0.001"} 7"#,
            #"launchad_test_call_duration_seconds_bucket{method="launch.query",le="+Inf"} 9"#,
            #"launchad_test_call_duration_seconds_sum{method="launch.query"} 5.002220001"#,
            #"launchad_test_call_duration_seconds_count{method="launch.query"} 9"#,
            #"launchad_test_call_duration_seconds_bucket{method="odd \"name\"\\",le="0.00001"} 0"#,
            #"launchad_test_call_duration_seconds_bucket{method="odd \"name\"\\",le="0.0001"} 0"#,
            #"launchad_test_call_duration_seconds_bucket{method="odd \"name\"\\",le="0.001"} 0"#,
            #"launchad_test_call_duration_seconds_bucket{method="odd \"name\"\\",le="+Inf"} 0"#,
            #"launchad_test_call_duration_seconds_sum{method="odd \"name\"\\"} 0.0"#,
            #"launchad_test_call_duration_seconds_count{method="odd \"name\"\\"} 0"#,
        ])
    }

    @Test("a histogram without labels is written without an empty label set")
    func noLabels() {
        let family = LatencyHistograms(Self.descriptor, bounds: [.microseconds(10)])
        family.histogram(labels: []).record(nanoseconds: 20_000)
        #expect(family.text.split(separator: "\n").map(String.init).suffix(4) == [
            #"launchad_test_call_duration_seconds_bucket{le="0.00001"} 0"#,
            #"launchad_test_call_duration_seconds_bucket{le="+Inf"} 1"#,
            "launchad_test_call_duration_seconds_sum 0.00002",
            "launchad_test_call_duration_seconds_count 1",
        ])
    }

    @Test("help text is escaped as the text format wants: backslash and newline, not the quote")
    func helpEscaped() {
        let descriptor = MetricNameDescriptor(namespace: "launchad", subsystem: "test", metricName: "odd", unitName: "seconds",
                                              helpText: #"a "b" \ c"# + "\nd")
        let family = LatencyHistograms(descriptor, bounds: [.microseconds(10)])
        _ = family.histogram(labels: [("method", "x")])
        #expect(family.text.split(separator: "\n").first == #"# HELP launchad_test_odd_seconds a "b" \\ c\nd"#)
    }

    @Test("the same labels give the same histogram")
    func sameLabels() {
        let family = LatencyHistograms(Self.descriptor, bounds: [.microseconds(10)])
        let first = family.histogram(labels: [("method", "a")])
        first.record(nanoseconds: 5)
        #expect(family.histogram(labels: [("method", "a")]) === first)
        #expect(family.histogram(labels: [("method", "b")]) !== first)
        #expect(family.text.components(separatedBy: "# TYPE").count == 2)
    }

    @Test("counts from many threads at once are all kept")
    func concurrent() async {
        let family = LatencyHistograms(Self.descriptor, bounds: [.microseconds(10), .microseconds(100)])
        let histogram = family.histogram(labels: [("method", "x")])
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for index in 0..<10_000 { histogram.record(nanoseconds: Int64((task * 10_000 + index) % 3) * 50_000) }
                }
            }
        }
        #expect(histogram.totals.count == 80_000)
        #expect(family.text.contains(#"_bucket{method="x",le="0.00001"} 26667"#))
        #expect(family.text.contains(#"_bucket{method="x",le="0.0001"} 80000"#))
    }
}
