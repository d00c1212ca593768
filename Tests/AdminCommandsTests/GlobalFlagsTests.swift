@testable import AdminCommands
import Testing

@Suite("adctl moves the global flags written before the command to after it", .timeLimit(.minutes(1)))
struct GlobalFlagsTests {
    static func reorder(_ line: String) -> String {
        ADCtl.reorderingGlobalFlags(line.split(separator: " ").map(String.init)).joined(separator: " ")
    }

    @Test("flags before a command word go after it", arguments: [
        ("--endpoint E edges", "edges --endpoint E"),
        ("--json stats 7", "stats --json 7"),
        ("--endpoint E --json --timeout 2 edges", "edges --endpoint E --json --timeout 2"),
        ("--keys-dir K --server-key S discover", "discover --keys-dir K --server-key S"),
    ])
    func beforeCommand(_ line: String, _ expected: String) {
        #expect(Self.reorder(line) == expected)
    }

    @Test("a command group's second word stays with the first, and the command's own arguments follow the flags", arguments: [
        ("--endpoint E --json campaign list --app shop", "campaign list --endpoint E --json --app shop"),
        ("--endpoint E campaign create --name x --starts now", "campaign create --endpoint E --name x --starts now"),
        ("--json campaign get 7", "campaign get --json 7"),
        ("--endpoint E creative upload a.png", "creative upload --endpoint E a.png"),
    ])
    func nested(_ line: String, _ expected: String) {
        #expect(Self.reorder(line) == expected)
    }

    @Test("the --flag=value form moves as one argument")
    func equalsForm() {
        #expect(Self.reorder("--endpoint=tcp://h:1 --timeout=3 campaign list") == "campaign list --endpoint=tcp://h:1 --timeout=3")
        // A value that itself holds '=' stays whole.
        #expect(ADCtl.reorderingGlobalFlags(["--server-key=a=b", "edges"]) == ["edges", "--server-key=a=b"])
    }

    @Test("a command line already in order, or with flags after the command, is left as it is", arguments: [
        "campaign list --endpoint E --json",
        "edges --endpoint E",
        "campaign force 7 --wait --json",
        "call campaign.get {\"id\":7}",
    ])
    func unchanged(_ line: String) {
        #expect(Self.reorder(line) == line)
    }

    @Test("an unknown flag ends the global flags: it and everything after it keep their place")
    func unknownFlag() {
        #expect(Self.reorder("--verbose --endpoint E edges") == "--verbose --endpoint E edges")
        #expect(Self.reorder("--endpoint E --verbose edges") == "--endpoint E --verbose edges")
        #expect(Self.reorder("--help") == "--help")
    }

    @Test("a value flag at the very end keeps its missing value missing, and an empty line stays empty")
    func edges() {
        #expect(ADCtl.reorderingGlobalFlags(["--endpoint"]) == ["--endpoint"])
        #expect(ADCtl.reorderingGlobalFlags(["--json"]) == ["--json"])
        #expect(ADCtl.reorderingGlobalFlags([]) == [])
        #expect(ADCtl.reorderingGlobalFlags(["--json", "campaign"]) == ["campaign", "--json"])
    }

    @Test("the reordered line parses into the command with the flags set")
    func parses() throws {
        let command = try ADCtl.parseAsRoot(ADCtl.reorderingGlobalFlags(["--endpoint", "tcp://127.0.0.1:9", "--json", "campaign", "list", "--app", "shop"]))
        let list = try #require(command as? CampaignCommand.List)
        #expect(list.connection.endpoint == "tcp://127.0.0.1:9" && list.connection.json && list.app == "shop")
        #expect(throws: (any Error).self) { try ADCtl.parseAsRoot(["--endpoint", "E", "--json", "campaign", "list"]) }
    }
}
