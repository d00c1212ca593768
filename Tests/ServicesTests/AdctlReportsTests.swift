import Foundation
import JSONRPC
import LaunchAdAPI
import LaunchAdDomain
import LaunchAdTesting
import Testing
import ZMQRPC

/// `adctl reports` and `adctl app set --report-pause` against a real campaignd taking an edge's report.
extension AdctlTests {
    @Test("app set --report-pause sets, shows and turns off the threshold (out of range refused); reports lists a campaign's reports by reason, by app and since, as a table and JSON; the threshold paused it by rules")
    func reports() async throws {
        try await withStopping(CampaignFixture()) { fixture in
            let client = try fixture.admin()
            let sha = try await fixture.uploadPNG(client)
            let admin = fixture.endpoints["admin"]!
            func adctl(_ arguments: [String]) async throws -> (Int32, String) {
                try await Self.adctl(["--endpoint", admin] + arguments, in: fixture.directory)
            }
            var (status, output) = try await adctl(["app", "set", "shop", "--market", "global", "--report-pause", "1000001"])
            #expect(status != 0 && output.contains("--report-pause must be 1 to 1000000, or 0 to turn it off"), "\(output)")
            (status, output) = try await adctl(["app", "set", "shop", "--market", "global", "--report-pause", "3"])
            #expect(status == 0 && output.contains("report pause at 3 an hour"), "\(output)")
            (status, output) = try await adctl(["app", "list"])
            #expect(output.contains("REPORT PAUSE") && output.split(separator: "\n").last?.contains(" 3 ") == true, "\(output)")
            // A patch campaignd refuses itself (as a client other than adctl could send it), naming the field.
            await #expect { try await client.call(AdminAPI.appSet, AppPatch(app: "shop", reportPause: -1)) } throws: { error in
                (error as? JSONRPCError)?.code == -32602 && (error as? JSONRPCError)?.data?["field"] == "reportPause"
            }

            let created = try await client.call(AdminAPI.campaignCreate, CampaignFixture.fields(name: "Reported <b>ad</b>", creative: sha))
            let id = created.campaign.id
            let quiet = try await client.call(AdminAPI.campaignCreate, CampaignFixture.fields(name: "Quiet", app: "news", creative: sha)).campaign.id
            // An edge's report, as deliveryd ships it: 4 reports of the campaign in this hour, 1 of the other.
            let hour = HourlyCount.hour(of: .now())
            let reasons = ReportReasons(misleading: 3, other: 1)
            let sync = try RPCClient(context: fixture.context, configuration: RPCClientConfiguration(endpoint: fixture.endpoints["sync"]!))
            #expect(try await sync.call(SyncAPI.report, EdgeReport(edgeId: "edge-r", reportId: 1, counts: [
                CampaignStats(id: id, impressions: 0, clicks: 0, skips: 0, reasons: reasons),
                CampaignStats(id: quiet, impressions: 0, clicks: 0, skips: 0, reasons: ReportReasons(repetitive: 1)),
            ], hourly: [HourlyCount(id: id, hour: hour, reasons: reasons), HourlyCount(id: quiet, hour: hour, reasons: ReportReasons(repetitive: 1))],
                                                                   region: "test")).accepted)
            await sync.close()

            (status, output) = try await adctl(["reports"])
            var rows = output.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true).map(String.init) }
            #expect(status == 0 && rows.first == ["ID", "NAME", "APP", "REPORTS", "INAPPROPRIATE", "MISLEADING", "REPETITIVE", "OTHER", "LAST"], "\(output)")
            #expect(rows.dropFirst().map { $0.first } == [String(id), String(quiet)], "\(output)")
            #expect(rows.dropFirst().first.map { Array($0.suffix(6)) } == ["4", "0", "3", "0", "1", hour.rfc3339], "\(output)")
            (status, output) = try await adctl(["reports", "--app", "news"])
            rows = output.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true).map(String.init) }
            #expect(rows.dropFirst().map { $0.first } == [String(quiet)], "\(output)")
            (status, output) = try await adctl(["--json", "reports", "--since=-1h"])
            let listed = try JSONParser.parse(output.trimmingCharacters(in: .whitespacesAndNewlines))
            #expect(listed["campaigns"]?.arrayValue?.first?["reasons"]?["misleading"] == 3
                    && listed["campaigns"]?.arrayValue?.first?["name"] == "Reported <b>ad</b>", "\(output)")
            (status, output) = try await adctl(["--json", "reports", "--since", "+2h"])
            #expect(try JSONParser.parse(output.trimmingCharacters(in: .whitespacesAndNewlines))["campaigns"]?.arrayValue?.isEmpty == true, "\(output)")
            (status, output) = try await adctl(["reports", "--since", "yesterday-ish"])
            #expect(status != 0, "\(output)")

            // 4 reports in the hour reached the threshold of 3: paused, by rules; stats count them.
            #expect(try await client.call(AdminAPI.campaignGet, CampaignID(id: id)).campaign.state == .paused)
            (status, output) = try await adctl(["history", String(id)])
            #expect(status == 0 && output.contains("paused") && output.contains("rules"), "\(output)")
            (status, output) = try await adctl(["stats", String(id)])
            rows = output.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true).map(String.init) }
            #expect(rows.first?.prefix(5) == ["ID", "IMPRESSIONS", "CLICKS", "SKIPS", "REPORTS"] && rows.last?.prefix(5) == [String(id), "0", "0", "0", "4"], "\(output)")
            (status, output) = try await adctl(["app", "set", "shop", "--report-pause", "0"])
            #expect(status == 0 && output.contains("report pause off"), "\(output)")
            await client.close()
        }
    }
}
