import ArgumentParser
import CampaignService
import DeliveryService
import Foundation
import LaunchAdRuntime
import LaunchAdTesting
import RelayService
import Testing

/// The daemons' options parsed in process, as their mains parse them: the environment first, the command line over it.
/// A parse takes tens of milliseconds of CPU in a debug build (ArgumentParser reflects on the whole type each time):
/// the tests run one at a time, so that the suite takes one core and not both from the process tests beside it.
@Suite("the daemons' options", .serialized, .timeLimit(.minutes(2)))
struct DaemonOptionsTests {
    /// The error `T` gives for `arguments` under `environment`, as the program prints it; `nil` when they are taken.
    static func refusal<T: ParsableArguments>(_ type: T.Type, _ arguments: [String], _ environment: [String: String] = [:]) -> String? {
        do {
            _ = try T.parse(arguments, environment: environment)
            return nil
        } catch {
            return T.message(for: error)
        }
    }

    /// Expects every case refused with a message holding `message` (which names the flag).
    static func expectRefused<T: ParsableArguments>(_ type: T.Type, _ cases: [(arguments: [String], environment: [String: String])],
                                                    _ message: String, sourceLocation: SourceLocation = #_sourceLocation) {
        for (arguments, environment) in cases {
            let refusal = refusal(type, arguments, environment)
            #expect(refusal?.contains(message) == true, "\(T.self) \(arguments) \(environment): \(refusal ?? "taken")",
                    sourceLocation: sourceLocation)
        }
    }

    /// Expects each `(flag, bad, message)` refused with `message`, the bad value given by the flag and by its variable.
    static func expectEachRefused<T: ParsableArguments>(_ type: T.Type, prefix: String, _ cases: [(flag: String, bad: String, message: String)],
                                                        sourceLocation: SourceLocation = #_sourceLocation) {
        for (flag, bad, message) in cases {
            let variable = prefix + "_" + flag.uppercased().replacingOccurrences(of: "-", with: "_")
            expectRefused(type, [(["--\(flag)=\(bad)"], [:]), ([], [variable: bad])], message, sourceLocation: sourceLocation)
        }
    }

    /// Each daemon's options type, its variables' prefix and its section of deploy/README.md.
    static let daemons: [(type: any ParsableArguments.Type, prefix: String)] = [
        (CampaignOptions.self, "CAMPAIGND"), (DeliveryOptions.self, "DELIVERYD"), (RelayOptions.self, "RELAYD"),
    ]

    @Test("every option names its variable in its help, the daemon's prefix and the flag in capitals, and deploy/README.md lists it")
    func everyOptionHasItsVariable() throws {
        let readme = try String(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../deploy/README.md"), encoding: .utf8)
        for (type, prefix) in Self.daemons {
            let help = type.helpMessage(columns: 10_000)
            let optionLines = help.split(separator: "\n").filter { $0.hasPrefix("  --") && !$0.hasPrefix("  --help") }
            let variables = DaemonEnvironment.variables(of: type)
            #expect(variables.count == optionLines.count, "\(type): \(variables.count) variables for \(optionLines.count) options")
            #expect(variables.count >= 18, "\(type): \(variables.count) variables")
            for variable in variables {
                #expect(variable.name == prefix + "_" + variable.flag.uppercased().replacingOccurrences(of: "-", with: "_"), "\(variable)")
                #expect(readme.contains("| `--\(variable.flag)") && readme.contains("`\(variable.name)`"),
                        "deploy/README.md does not list --\(variable.flag) with \(variable.name)")
            }
        }
    }

    @Test("a variable stands for its flag, a flag on the command line wins over it, and an empty variable is unset")
    func environmentUnderTheCommandLine() throws {
        let environment = ["DELIVERYD_EDGE_ID": "edge-env", "DELIVERYD_REGION": "eu", "DELIVERYD_RATE_LIMIT": "50", "DELIVERYD_INSECURE": "yes",
                           "DELIVERYD_KEYS_DIR": "/keys", "DELIVERYD_UPDATES_PRIORITY": "7", "DELIVERYD_TLS_CERT": "", "RELAYD_REGION": "elsewhere"]
        let edge = try DeliveryOptions.parse(["--edge-id", "edge-flag", "--updates-priority", "3"], environment: environment).configuration()
        #expect(edge.following.followerId == "edge-flag" && edge.following.updatesPriority == 3)
        #expect(edge.following.region == "eu" && edge.rateLimit == 50 && edge.insecure && edge.keysDirectory == "/keys" && edge.tlsCertificate == nil)
        let plain = try DeliveryOptions.parse([], environment: [:]).configuration()
        #expect(plain.following.followerId == "edge-1" && plain.following.region == "local" && plain.rateLimit == nil && !plain.insecure && plain.keysDirectory == nil)
        #expect(try DeliveryOptions.parse([], environment: ["DELIVERYD_INSECURE": "0"]).configuration().insecure == false)

        let relay = try RelayOptions.parse(["--change-window", "5"], environment: ["RELAYD_CHANGE_WINDOW": "9", "RELAYD_READY_FILE": "/run/r",
                                                                                     "RELAYD_HTTP_IDLE_TIMEOUT": "7"]).configuration()
        #expect(relay.changeWindow == 5 && relay.readyFile == "/run/r" && relay.httpConnections.idleTimeout == .seconds(7))
        let campaign = try CampaignOptions.parse([], environment: ["CAMPAIGND_EDGE_RETENTION": "2h", "CAMPAIGND_DATABASE": "sqlite",
                                                                   "CAMPAIGND_MAX_CREATIVE_BYTES": "1000"]).configuration()
        #expect(campaign.edgeRetention == 7200 && campaign.maxCreativeBytes == 1000 && campaign.console == nil)
    }

    @Test("deliveryd and relayd fill how they follow upstream alike from the options they share, and their ids and upstreams from their own")
    func followingConfigurations() throws {
        let shared = ["--cache-dir", "/var/cache/x", "--region", "eu-west", "--updates-hwm", "42", "--updates-priority", "2"]
        let edge = try DeliveryOptions.parse(shared + ["--edge-id", "edge-9", "--campaign-sync", "tcp://c:1", "--campaign-updates", "tcp://c:2",
                                                       "--snapshot-page", "7", "--creative-memory-bytes", "2097152", "--state-save-delay", "30"],
                                             environment: [:]).configuration().following
        let relay = try RelayOptions.parse(shared + ["--relay-id", "relay-9", "--upstream-sync", "tcp://c:1", "--upstream-updates", "tcp://c:2"],
                                           environment: [:]).configuration().following
        for following in [edge, relay] {
            #expect(following.cacheDirectory == "/var/cache/x" && following.region == "eu-west" && following.updatesHighWaterMark == 42
                    && following.updatesPriority == 2 && following.upstreamSync == "tcp://c:1" && following.upstreamUpdates == "tcp://c:2")
        }
        #expect(edge.followerId == "edge-9" && relay.followerId == "relay-9")
        #expect(edge.snapshotPageSize == 7 && edge.creativeCacheBytes == 2_097_152 && edge.stateSaveDelay == .milliseconds(30))
        let reporting = try DeliveryOptions.parse(["--report-interval", "10s"], environment: ["DELIVERYD_SHUTDOWN_LINGER": "30"]).configuration()
        #expect(reporting.reportInterval == .seconds(10) && reporting.shutdownLinger == .seconds(30))
        #expect(try DeliveryOptions.parse([], environment: [:]).configuration().reportInterval == .seconds(10))
        #expect(try CampaignOptions.parse([], environment: ["CAMPAIGND_PACING_INTERVAL": "30s"]).configuration().pacingInterval == .seconds(30))
        // The relay takes the edge's defaults for what only deliveryd has a flag for.
        #expect(relay.snapshotPageSize == 1000 && relay.creativeCacheBytes == 64 << 20 && relay.stateSaveDelay == .milliseconds(10))
        let (plainEdge, plainRelay) = (try DeliveryOptions.parse([], environment: [:]).configuration().following,
                                       try RelayOptions.parse([], environment: [:]).configuration().following)
        #expect(plainEdge.cacheDirectory == "./deliveryd-cache" && plainEdge.followerId == "edge-1")
        #expect(plainRelay.cacheDirectory == "./relayd-cache" && plainRelay.followerId == "relay-1")
    }

    @Test("the options all three daemons share are refused alike, from the flag or the environment, naming the flag")
    func sharedRefusals() {
        for (type, prefix) in Self.daemons {
            Self.expectEachRefused(type, prefix: prefix, [
                ("log-level", "loud", "--log-level must be trace, debug, info, notice, warning, error or critical"),
                ("log-format", "xml", "--log-format must be text or json"),
                ("http-header-timeout", "0", "--http-header-timeout must be a number of seconds, at least 1"),
                ("http-idle-timeout", "0", "--http-idle-timeout must be a number of seconds, at least 1"),
                ("http-idle-timeout", "soon", "'--http-idle-timeout"),
                ("http-address", "localhost", "--http-address: HTTP address localhost must be host:port"),
            ])
            #expect(Self.refusal(type, ["--no-such-flag"]) != nil)
            #expect(Self.refusal(type, []) == nil, "\(type): the defaults are refused")
        }
    }

    @Test("campaignd refuses each bad value, from the flag or the environment, naming the flag")
    func campaigndRefusals() throws {
        let console = ["--console-address", "127.0.0.1:0"]
        Self.expectRefused(CampaignOptions.self, [(["--edge-retention", "0s"], [:]), (["--edge-retention", "soon"], [:]),
                                                  ([], ["CAMPAIGND_EDGE_RETENTION": "400d"])], "--edge-retention must be a time")
        Self.expectRefused(CampaignOptions.self, [(["--stats-retention", "59m"], [:]), ([], ["CAMPAIGND_STATS_RETENTION": "3661d"])],
                           "--stats-retention must be a time between 1h and 3660d")
        Self.expectRefused(CampaignOptions.self, [(["--pacing-interval", "2h"], [:]), ([], ["CAMPAIGND_PACING_INTERVAL": "0s"])],
                           "--pacing-interval must be a time between 1s and 1h")
        Self.expectRefused(CampaignOptions.self, [(["--max-held-reply-bytes", "1048576"], [:]), ([], ["CAMPAIGND_MAX_HELD_REPLY_BYTES": "1"])],
                           "--max-held-reply-bytes must be a number of bytes, at least 8388608")
        Self.expectRefused(CampaignOptions.self, [(["--updates-queue-bytes", "1000"], [:]), ([], ["CAMPAIGND_UPDATES_QUEUE_BYTES": "-1"])],
                           "--updates-queue-bytes must be a number of bytes, at least 262144")
        Self.expectRefused(CampaignOptions.self, [(["--max-creative-bytes", "0"], [:]), ([], ["CAMPAIGND_MAX_CREATIVE_BYTES": "67108865"])],
                           "--max-creative-bytes must be between 1 and 67108864")
        Self.expectRefused(CampaignOptions.self, [(["--database", "mysql://x"], [:]), ([], ["CAMPAIGND_DATABASE": "postgres://"])], "postgres://")
        for (flag, variable, most) in [("--console-signin-limit", "CAMPAIGND_CONSOLE_SIGNIN_LIMIT", 100_000),
                                       ("--console-signin-limit-all", "CAMPAIGND_CONSOLE_SIGNIN_LIMIT_ALL", 1_000_000)] {
            Self.expectRefused(CampaignOptions.self, [(console + [flag, "0"], [:]), (console, [variable: "\(most + 1)"])],
                               "\(flag) must be between 1 and \(most)")
            Self.expectRefused(CampaignOptions.self, [(console, [variable: "many"])], "'\(flag)")
        }
        Self.expectRefused(CampaignOptions.self, [(["--console-address", "0.0.0.0:0"], [:]), ([], ["CAMPAIGND_CONSOLE_ADDRESS": "0.0.0.0:0"])],
                           "--console-address 0.0.0.0:0 is beyond loopback: give --console-users")
        Self.expectRefused(CampaignOptions.self, [(["--console-address", "console"], [:])], "--console-address: HTTP address console must be host:port")
        Self.expectRefused(CampaignOptions.self, [(["--console-users", "/nonexistent"], [:]), ([], ["CAMPAIGND_CONSOLE_USERS": "/nonexistent"])],
                           "--console-users needs --console-address")

        let directory = try makeTemporaryDirectory("console-users")
        defer { removeTemporaryDirectory(directory) }
        let users = directory.appendingPathComponent("users")
        let alice = "alice:9f2c47e1b0a85d3c6e14f7a29b08d5c3\n"
        // A short token, then tokens long enough but trivially guessed: each refused, naming its line.
        for (text, message) in [
            (alice + "bob:bob-token-0123456789abcdef\n", "line 2: the token of bob must be 32 to 512 visible ASCII characters"),
            ("# operators\nalice:\(String(repeating: "z", count: 48))\n", "line 2: the token of alice is too easy to guess: it uses 1 different character"),
            (alice + "\nbob:\(String(repeating: "hunter2!", count: 5))\n", "line 3: the token of bob is too easy to guess: it repeats a pattern of 8 characters"),
        ] {
            try Data(text.utf8).write(to: users)
            Self.expectRefused(CampaignOptions.self, [(console + ["--console-users", users.path], [:])], "--console-users: \(users.path) \(message)")
        }
        try Data(alice.utf8).write(to: users)
        let taken = try CampaignOptions.parse(["--console-address", "0.0.0.0:0", "--console-tls"], environment: ["CAMPAIGND_CONSOLE_USERS": users.path])
        let configuration = try #require(try taken.configuration().console)
        #expect(configuration.address == "0.0.0.0:0" && configuration.secureCookies && configuration.users?.names == ["alice"])
    }

    @Test("deliveryd refuses each bad value, from the flag or the environment, naming the flag")
    func deliverydRefusals() {
        Self.expectEachRefused(DeliveryOptions.self, prefix: "DELIVERYD", [
            ("state-save-delay", "60001", "--state-save-delay must be a number of milliseconds, 0 to 60000"),
            ("report-interval", "0s", "--report-interval must be a time between 1s and 1h"),
            ("updates-priority", "21", "--updates-priority must be a number of nice values, 0 to 20"),
            ("updates-hwm", "0", "--updates-hwm must be at least 1"),
            ("rate-limit", "-1", "--rate-limit must be a number of requests a second, 0 for none"),
            ("http-body-timeout", "0", "--http-body-timeout must be a number of seconds, at least 1"),
            ("shutdown-linger", "61", "--shutdown-linger must be a number of seconds, 0 to 60"),
            ("http-max-in-flight", "0", "--http-max-in-flight must be a number of requests, at least 1"),
            ("http-max-connections", "0", "--http-max-connections must be a number of connections, at least 1"),
            ("max-held-reply-bytes", "1048576", "--max-held-reply-bytes must be a number of bytes, at least 2097152"),
            ("creative-memory-bytes", "1000", "--creative-memory-bytes must be a number of bytes, at least 1048576"),
            ("device-memory-bytes", "1048576", "--device-memory-bytes must be a number of bytes, at least 4194304"),
            ("snapshot-page", "10001", "--snapshot-page must be a number of campaigns, 1 to 10000"),
            ("edge-id", " ", "--edge-id must be 1 to 128 bytes"),
            ("edge-id", "edge\u{202E}1", "--edge-id must be 1 to 128 bytes"),
            ("region", String(repeating: "r", count: 33), "--region must be 1 to 32 of A-Z, a-z, 0-9 and '-'"),
            ("region", "cn east", "--region must be 1 to 32 of A-Z, a-z, 0-9 and '-'"),
            ("region", "-east", "--region must be 1 to 32 of A-Z, a-z, 0-9 and '-'"),
        ])
        Self.expectRefused(DeliveryOptions.self, [([], ["DELIVERYD_STATE_SAVE_DELAY": "soon"]), ([], ["DELIVERYD_UPDATES_PRIORITY": "high"])], "is invalid for '--")
    }

    @Test("relayd refuses each bad value, from the flag or the environment, naming the flag")
    func relaydRefusals() {
        Self.expectEachRefused(RelayOptions.self, prefix: "RELAYD", [
            ("updates-priority", "21", "--updates-priority must be a number of nice values, 0 to 20"),
            ("updates-hwm", "0", "--updates-hwm must be at least 1"),
            ("change-window", "0", "--change-window must be a number of changes, at least 1"),
            ("change-window-bytes", "65536", "--change-window-bytes must be a number of bytes, at least 4194304"),
            ("max-held-reply-bytes", "1048576", "--max-held-reply-bytes must be a number of bytes, at least 8388608"),
            ("updates-queue-bytes", "1000", "--updates-queue-bytes must be a number of bytes, at least 262144"),
            ("relay-id", "relay\u{7}", "--relay-id must be 1 to 128 bytes"),
            ("region", "\u{200F}", "--region must be 1 to 32 of A-Z, a-z, 0-9 and '-'"),
            ("region", "eu_central", "--region must be 1 to 32 of A-Z, a-z, 0-9 and '-'"),
        ])
        Self.expectRefused(RelayOptions.self, [([], ["RELAYD_CHANGE_WINDOW_BYTES": "lots"])], "'--change-window-bytes")
    }
}
