import LaunchAdTesting
import Testing

/// The tests' reader of a `/metrics` page: a sample is found by its exact name and the labels asked for.
@Suite("the tests' /metrics reader", .timeLimit(.minutes(1)))
struct MetricsPageTests {
    static let page = MetricsPage(text: """
        # HELP launchad_relayd_seq The seq applied.
        # TYPE launchad_relayd_seq gauge
        launchad_relayd_seq_lag 3
        launchad_relayd_seq 17
        launchad_deliveryd_http_requests_total{route="creatives",status="200"} 5
        launchad_deliveryd_http_requests_total{route="rpc",status="429"} 2
        launchad_deliveryd_http_requests_total{route="rpc",status="200"} 41

        """)

    @Test("a name matches only itself, not a longer name it begins; labels narrow the samples, a whole series matches itself alone; comments are not samples")
    func values() {
        #expect(Self.page.value("launchad_relayd_seq") == 17)
        #expect(Self.page.value("launchad_relayd_seq_lag") == 3)
        #expect(Self.page.value("launchad_relayd") == nil)
        #expect(Self.page.value("launchad_deliveryd_http_requests_total") == 5)
        #expect(Self.page.value("launchad_deliveryd_http_requests_total", labels: [#"route="rpc""#, #"status="200""#]) == 41)
        #expect(Self.page.value("launchad_deliveryd_http_requests_total", labels: [#"status="404""#]) == nil)
        #expect(Self.page.value(#"launchad_deliveryd_http_requests_total{route="rpc",status="200"}"#) == 41)
        #expect(Self.page.value(#"launchad_deliveryd_http_requests_total{route="rpc"}"#) == nil)
        #expect(Self.page.samples.count == 5)
        #expect(Self.page.lines(containing: #"route="rpc""#).count == 2)
        #expect(Self.page.lines(containing: "HELP").isEmpty)
    }
}
