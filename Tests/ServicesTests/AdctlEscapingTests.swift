import Foundation
import JSONRPC
import LaunchAdAPI
import LaunchAdTesting
import Testing

@Suite("adctl prints what peers sent with its control characters escaped", .timeLimit(.minutes(3)))
struct AdctlEscapingTests {
    /// What the rows were given before names and edge ids had rules: a newline and a forged row, a sequence that
    /// clears the terminal, a right-to-left override, a NUL.
    static let hostileName = "Sale\nFORGED 99 row live\u{1B}[2J\u{202E}gpj.exe\u{0}!"
    static let escapedName = #"Sale\u{0A}FORGED 99 row live\u{1B}[2J\u{202E}gpj.exe\u{00}!"#

    @Test("A campaign name and an edge's id and region stored before the rules print as escapes in tables, one-line errors and get; --json stays JSON")
    func storedBeforeTheRules() async throws {
        try await withStopping(CampaignFixture()) { fixture in
            let admin = try fixture.admin()
            let creative = try await fixture.uploadPNG(admin)
            let id = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(name: "placeholder", creative: creative)).campaign.id
            await admin.close()
            // campaignd stopped, the rows written as an older campaignd (or a hand at the database) could have left them.
            try await fixture.restart(signal: SIGTERM) { data in
                let file = data.appendingPathComponent("campaigns.sqlite")
                try runSQLiteShell(file.path, """
                    UPDATE campaigns SET body = json_set(body, '$.name', 'Sale' || char(10) || 'FORGED 99 row live' || char(27) || '[2J' || char(8238) \
                    || 'gpj.exe' || char(0) || '!') WHERE id = \(id);
                    INSERT INTO edge_acks (edge_id, region, epoch, applied_seq, last_seen) VALUES \
                    ('edge' || char(27) || ']0;owned' || char(7), 'east' || char(8238) || 'tsew', 'old', 0, CAST(strftime('%s', 'now') AS INTEGER) * 1000);
                    """)
            }
            let endpoint = fixture.endpoints["admin"]!
            let directory = fixture.directory

            var (status, output) = try await AdctlTests.adctl(["--endpoint", endpoint, "campaign", "list"], in: directory)
            #expect(status == 0, "\(output)")
            #expect(output.contains(Self.escapedName), "\(output)")
            let lines = output.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.isEmpty }
            #expect(lines.count == 2 && lines[0].hasPrefix("ID") && lines[1].hasPrefix("\(id) "), "one header, one row: \(lines)")
            #expect(!output.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" } && !output.contains("\u{202E}"), "nothing raw")

            (status, output) = try await AdctlTests.adctl(["--endpoint", endpoint, "campaign", "get", "\(id)"], in: directory)
            #expect(status == 0 && output.contains(#"\u{202E}gpj.exe"#), "\(output)")
            #expect(!output.contains("\u{202E}"))

            (status, output) = try await AdctlTests.adctl(["--endpoint", endpoint, "edges"], in: directory)
            #expect(status == 0, "\(output)")
            #expect(output.contains(#"edge\u{1B}]0;owned\u{07}"#) && output.contains(#"east\u{202E}tsew"#), "\(output)")
            #expect(!output.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" } && !output.contains("\u{202E}"))

            // Scripts read --json: the same values, as JSON escapes them, whole.
            (status, output) = try await AdctlTests.adctl(["--endpoint", endpoint, "--json", "campaign", "list"], in: directory)
            #expect(status == 0)
            let list = try JSONParser.parse(output.trimmingCharacters(in: .whitespacesAndNewlines))
            #expect(list["campaigns"]?.arrayValue?.first?["name"]?.stringValue == Self.hostileName)

            // An update of another field is refused while the stored name breaks the rule, and the reason prints escaped.
            (status, output) = try await AdctlTests.adctl(["--endpoint", endpoint, "campaign", "update", "\(id)", "--priority", "70"], in: directory)
            #expect(status == 1, "\(output)")
            #expect(output.contains("adctl: name: must not contain control characters or line breaks (it has \\u{0A})"), "\(output)")
            // So is a hostile name adctl checks itself before sending (--dry-run), with the same rule.
            (status, output) = try await AdctlTests.adctl(["campaign", "create", "--dry-run", "--name", "x\u{1B}[31mred", "--app", "shop",
                                                           "--starts", "now", "--ends", "+1h", "--creative", creative], in: directory)
            #expect(status == 1 && output.contains(#"adctl: name: must not contain control characters or line breaks (it has \u{1B})"#), "\(output)")
            #expect(!output.contains("\u{1B}"))
        }
    }
}
