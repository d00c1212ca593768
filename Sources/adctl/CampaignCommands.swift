import ArgumentParser
import CampaignStore
import Foundation
import JSONRPC
import LaunchAdAPI
import LaunchAdDomain
import LaunchAdRuntime
import ZMQRPC

/// `adctl campaign ...`
struct CampaignCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "campaign", abstract: "Create, change, inspect and take down campaigns.",
        subcommands: [Create.self, Update.self, Get.self, List.self, Force.self, Unforce.self, Pause.self, Resume.self,
                      Expire.self, Delete.self])
}

/// Times as operators write them: RFC 3339 (seconds optional), `now`, or an offset from now such as `+2h`.
enum FriendlyTime {
    static func parse(_ text: String, now: Date = Date()) throws -> Timestamp {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let nowStamp = Timestamp(seconds: now.timeIntervalSince1970)
        if trimmed == "now" { return nowStamp }
        if let sign = trimmed.first, sign == "+" || sign == "-", let unit = trimmed.last,
           let amount = Double(trimmed.dropFirst().dropLast()), amount >= 0 {
            let seconds: Double
            switch unit {
            case "s": seconds = amount
            case "m": seconds = amount * 60
            case "h": seconds = amount * 3600
            case "d": seconds = amount * 86_400
            default: throw ValidationError("\(text): use s, m, h or d after the number, as in +2h")
            }
            return nowStamp.adding(seconds: sign == "+" ? seconds : -seconds)
        }
        if let stamp = Timestamp(rfc3339: trimmed) { return stamp }
        // 2026-12-12T00:00+08:00: seconds left out.
        if let t = trimmed.firstIndex(of: "T") ?? trimmed.firstIndex(of: " "),
           trimmed[trimmed.index(after: t)...].prefix(while: { $0 != "Z" && $0 != "+" && $0 != "-" && $0 != "z" }).count == 5 {
            let time = trimmed.index(t, offsetBy: 6)
            if let stamp = Timestamp(rfc3339: String(trimmed[..<time]) + ":00" + String(trimmed[time...])) { return stamp }
        }
        throw ValidationError("\(text) is not a time: use RFC 3339 (2026-12-12T00:00:00+08:00), now, or +2h / -30m / +1d")
    }
}

/// Every campaign field as a flag (and `--file` for a JSON object of them).
struct CampaignFieldOptions: ParsableArguments {
    @Option(help: "A JSON file of campaign fields (flags override it).")
    var file: String?
    @Option(help: "The campaign's name.") var name: String?
    @Option(help: "The app it is for (a-z, 0-9, '.', '_', '-').") var app: String?
    @Option(help: "When it starts: RFC 3339, now, or +2h.") var starts: String?
    @Option(help: "When it ends: RFC 3339, now, or +2h.") var ends: String?
    @Option(help: "0 to 100 (default 50).") var priority: Int?
    @Option(help: "1 to 1000 among equal priorities (default 100).") var weight: Int?
    @Option(help: "Answer before anything else: true or false.") var forced: Bool?
    @Option(help: "Seconds shown, 1 to 10 (default 3).") var countdown: Int?
    @Option(help: "Whether the user may skip: true or false (default true).") var skippable: Bool?
    @Option(help: "Seconds before skipping is allowed.") var skipAfter: Int?
    @Option(help: "Launch types, comma-separated: cold, hot.") var launchTypes: String?
    @Option(help: "For hot launches: seconds in the background first.") var minBackground: Int?
    @Option(help: "On tap, open this http(s) URL.") var jumpUrl: String?
    @Option(help: "On tap, open this deep link (shop://...).") var jumpDeeplink: String?
    @Option(help: "A creative's sha256, with an optional weight (SHA:WEIGHT); repeat for variants.") var creative: [String] = []
    @Option(help: "Target platforms, comma-separated (ios, android, harmonyos).") var platforms: String?
    @Option(help: "Lowest app version, inclusive (5.2.0).") var minVersion: String?
    @Option(help: "Highest app version, exclusive (6.0).") var maxVersion: String?
    @Option(help: "Target regions, comma-separated.") var regions: String?
    @Option(help: "Target locales, comma-separated (zh-CN, en).") var locales: String?
    @Option(help: "Frequency cap per device: SHOWS/HOURS, as in 2/24.") var cap: String?

    static func list(_ text: String) -> [String] {
        text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// The fields given, on top of the file's.
    func fields(base: CampaignFields? = nil) throws -> CampaignFields {
        var fields = base ?? CampaignFields()
        if let file {
            guard let data = FileManager.default.contents(atPath: file) else { throw ValidationError("cannot read \(file)") }
            do {
                fields = try JSONValueDecoder().decode(CampaignFields.self, fromJSON: [UInt8](data))
            } catch let error as DecodingError {
                throw ValidationError("\(file): \(error.fieldPath): \(error.reason)")
            } catch {
                throw ValidationError("\(file) is not JSON: \(error)")
            }
        }
        if let name { fields.name = name }
        if let app { fields.app = app }
        if let starts { fields.startsAt = try FriendlyTime.parse(starts) }
        if let ends { fields.endsAt = try FriendlyTime.parse(ends) }
        if let priority { fields.priority = priority }
        if let weight { fields.weight = weight }
        if let forced { fields.forced = forced }
        if let countdown { fields.countdown = countdown }
        if let skippable { fields.skippable = skippable }
        if let skipAfter { fields.skipAfter = skipAfter }
        if let launchTypes {
            fields.launchTypes = try Self.list(launchTypes).map { value in
                guard let type = LaunchType(rawValue: value) else { throw ValidationError("--launch-types: \(value) is not cold or hot") }
                return type
            }
        }
        if let minBackground { fields.minBackgroundSeconds = minBackground }
        if jumpUrl != nil && jumpDeeplink != nil { throw ValidationError("give --jump-url or --jump-deeplink, not both") }
        if let jumpUrl { fields.jump = Jump(type: .url, value: jumpUrl) }
        if let jumpDeeplink { fields.jump = Jump(type: .deeplink, value: jumpDeeplink) }
        if !creative.isEmpty {
            fields.creatives = try creative.map { text in
                let parts = text.split(separator: ":", maxSplits: 1).map(String.init)
                guard let sha = parts.first, !sha.isEmpty else { throw ValidationError("--creative needs a sha256") }
                guard parts.count == 1 || Int(parts[1]) != nil else { throw ValidationError("--creative \(text): the weight after ':' must be a number") }
                return CreativeRef(sha256: sha, weight: parts.count == 2 ? Int(parts[1])! : 100)
            }
        }
        var targeting = fields.targeting ?? Targeting()
        var targeted = fields.targeting != nil
        if let platforms { targeting.platforms = Self.list(platforms); targeted = true }
        if minVersion != nil || maxVersion != nil {
            targeting.appVersions = VersionRange(min: minVersion ?? targeting.appVersions?.min, max: maxVersion ?? targeting.appVersions?.max)
            targeted = true
        }
        if let regions { targeting.regions = Self.list(regions); targeted = true }
        if let locales { targeting.locales = Self.list(locales); targeted = true }
        if targeted { fields.targeting = targeting }
        if let cap {
            let parts = cap.split(separator: "/")
            guard parts.count == 2, let shows = Int(parts[0]), let hours = Int(parts[1]) else {
                throw ValidationError("--cap \(cap): write SHOWS/HOURS, as in 2/24")
            }
            fields.frequencyCap = FrequencyCap(shows: shows, hours: hours)
        }
        return fields
    }
}

/// `--wait`, `--wait-timeout` and `--dry-run`, shared by every write.
struct WriteOptions: ParsableArguments {
    @Flag(help: "Wait until every live edge has applied the change, and show how long each took.")
    var wait = false
    @Option(help: "Seconds to wait for the edges.")
    var waitTimeout: Double = 30
    @Flag(help: "Show what would change, and change nothing.")
    var dryRun = false
}

/// Shared by the write commands: send, print, and wait for the edges.
enum Writes {
    static func finish(_ result: CampaignChangeResult, connection: ConnectionOptions, options: WriteOptions, client: RPCClient,
                       verb: String, started: ContinuousClock.Instant) async throws {
        var report: [JSONValue] = []
        var failed: [String] = []
        if options.wait {
            (report, failed) = try await waitForEdges(seq: result.seq, client: client, timeout: options.waitTimeout, started: started)
        }
        if connection.json {
            var object: JSONObject = ["campaign": try JSONValueEncoder().encode(result.campaign), "seq": .number(JSONNumber(result.seq))]
            if options.wait { object["edges"] = .array(report) }
            print(JSONValue.object(object).jsonText)
        } else {
            print("campaign \(result.campaign.id) \(verb) (seq \(result.seq)), now \(result.campaign.state.rawValue)")
            if options.wait {
                Table.print(["EDGE", "REGION", "APPLIED", "TOOK"], report.map { edge in
                    [edge["edgeId"]?.stringValue ?? "", edge["region"]?.stringValue ?? "", edge["appliedSeq"]?.description ?? "",
                     edge["tookMs"].map { "\($0.description) ms" } ?? "not in time"]
                })
            }
        }
        if !failed.isEmpty {
            exitWithError("adctl", "\(failed.count) edge(s) did not apply seq \(result.seq) within \(options.waitTimeout) s: \(failed.joined(separator: ", "))")
        }
    }

    /// Polls `edge.list` until every edge that is not stale has applied `seq`; how long each took from `started`.
    static func waitForEdges(seq: Int64, client: RPCClient, timeout: Double, started: ContinuousClock.Instant) async throws -> ([JSONValue], [String]) {
        var took: [String: Int] = [:]
        var last: [EdgeInfo] = []
        let deadline = started + .milliseconds(Int(timeout * 1000))
        while ContinuousClock.now < deadline {
            let list = try await client.call(AdminAPI.edgeList, NoParams())
            last = list.edges.filter { !$0.stale }
            let elapsed = Int((ContinuousClock.now - started) / .milliseconds(1))
            for edge in last where edge.appliedSeq >= seq && took[edge.edgeId] == nil { took[edge.edgeId] = elapsed }
            if last.allSatisfy({ took[$0.edgeId] != nil }) { break }
            try await Task.sleep(for: .milliseconds(5))
        }
        let report: [JSONValue] = last.map { edge in
            var object: JSONObject = ["edgeId": .string(edge.edgeId), "region": .string(edge.region), "appliedSeq": .number(JSONNumber(edge.appliedSeq))]
            if let ms = took[edge.edgeId] { object["tookMs"] = .number(JSONNumber(ms)) }
            return .object(object)
        }
        return (report, last.filter { took[$0.edgeId] == nil }.map(\.edgeId))
    }
}

/// Column-aligned tables for people.
enum Table {
    static func print(_ header: [String], _ rows: [[String]]) {
        let all = [header] + rows
        var widths = header.map(\.count)
        for row in all { for (index, cell) in row.enumerated() where index < widths.count { widths[index] = max(widths[index], cell.count) } }
        for row in all {
            let line = row.enumerated().map { index, cell in
                index == row.count - 1 ? cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
            Swift.print(line)
        }
    }

    static func campaigns(_ campaigns: [Campaign]) {
        print(["ID", "NAME", "APP", "STATE", "PRI", "WEIGHT", "FORCED", "STARTS", "ENDS", "V"], campaigns.map { c in
            [String(c.id), c.name, c.app, c.state.rawValue, String(c.priority), String(c.weight), c.forced ? "yes" : "",
             c.startsAt.rfc3339, c.endsAt.rfc3339, String(c.version)]
        })
    }
}

extension CampaignCommand {
    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a campaign.",
            discussion: """
                Example:
                  adctl campaign create --name "Double 12" --app shop --starts now --ends +2h \\
                    --creative 9f86d0...0a08 --jump-url https://shop.example.com/1212 --wait
                """)
        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var fields: CampaignFieldOptions
        @OptionGroup var write: WriteOptions

        func run() async throws {
            let fields = try self.fields.fields()
            if write.dryRun {
                do throws(FieldError) {
                    _ = try CampaignRules.create(fields, id: 0, now: Timestamp(seconds: Date().timeIntervalSince1970), creativeExists: { _ in true })
                } catch {
                    exitWithError("adctl", "\(error.field): \(error.rule)")
                }
                print(connection.json ? try JSONValueEncoder().encode(fields).jsonText : "would create: \(try JSONValueEncoder().encode(fields).jsonText)")
                return
            }
            await connection.run { client in
                let started = ContinuousClock.now
                let result = try await client.call(AdminAPI.campaignCreate, fields)
                try await Writes.finish(result, connection: connection, options: write, client: client, verb: "created", started: started)
            }
        }
    }

    struct Update: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Change fields of a campaign (only those given).",
            discussion: "Example:\n  adctl campaign update 7 --priority 90 --ends 2026-12-13T00:00+08:00 --wait")
        @OptionGroup var connection: ConnectionOptions
        @Argument(help: "The campaign's id.") var id: Int64
        @OptionGroup var fields: CampaignFieldOptions
        @OptionGroup var write: WriteOptions

        func run() async throws {
            let fields = try self.fields.fields()
            await connection.run { client in
                if write.dryRun {
                    let current = try await client.call(AdminAPI.campaignGet, CampaignID(id: id)).campaign
                    let next: Campaign
                    do throws(CampaignRuleError) {
                        next = try CampaignRules.update(current, with: fields, now: Timestamp(seconds: Date().timeIntervalSince1970), creativeExists: { _ in true })
                    } catch {
                        switch error {
                        case .field(let field): exitWithError("adctl", field.description)
                        case .transition(let transition): exitWithError("adctl", transition.description)
                        }
                    }
                    try Diff.print(from: current, to: next, json: connection.json)
                    return
                }
                let started = ContinuousClock.now
                let result = try await client.call(AdminAPI.campaignUpdate, CampaignUpdateParams(id: id, fields: fields))
                try await Writes.finish(result, connection: connection, options: write, client: client, verb: "updated", started: started)
            }
        }
    }

    struct Get: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show one campaign.", discussion: "Example:\n  adctl campaign get 7 --json")
        @OptionGroup var connection: ConnectionOptions
        @Argument(help: "The campaign's id.") var id: Int64

        func run() async throws {
            await connection.run { client in
                let campaign = try await client.call(AdminAPI.campaignGet, CampaignID(id: id)).campaign
                if connection.json {
                    print(try JSONValueEncoder().encode(CampaignResult(campaign: campaign)).jsonText)
                } else {
                    let json = try JSONValueEncoder().encode(campaign)
                    for member in json.objectValue ?? JSONObject() { print("\(member.key.padding(toLength: 20, withPad: " ", startingAt: 0)) \(member.value.jsonText)") }
                }
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List campaigns, by app and state.",
                                                        discussion: "Example:\n  adctl campaign list --app shop --state live")
        @OptionGroup var connection: ConnectionOptions
        @Option(help: "Only this app's campaigns.") var app: String?
        @Option(help: "Only campaigns in this state (scheduled, live, paused, expired, deleted).") var state: String?

        func validate() throws {
            if let state, CampaignState(rawValue: state) == nil { throw ValidationError("--state must be one of scheduled, live, paused, expired, deleted") }
        }

        func run() async throws {
            await connection.run { client in
                let list = try await client.call(AdminAPI.campaignList, CampaignListParams(app: app, state: state.flatMap(CampaignState.init)))
                if connection.json { print(try JSONValueEncoder().encode(list).jsonText) } else { Table.campaigns(list.campaigns) }
            }
        }
    }

    struct Force: AsyncParsableCommand {
        static let configuration = operationConfiguration("force", "Make a campaign answer first, on every edge, from the next query.")
        @OptionGroup var operation: OperationOptions
        func run() async throws { await operation.run(AdminAPI.campaignForce, .forced, verb: "forced") }
    }

    struct Unforce: AsyncParsableCommand {
        static let configuration = operationConfiguration("unforce", "Stop forcing a campaign.")
        @OptionGroup var operation: OperationOptions
        func run() async throws { await operation.run(AdminAPI.campaignUnforce, .unforced, verb: "unforced") }
    }

    struct Pause: AsyncParsableCommand {
        static let configuration = operationConfiguration("pause", "Hold a campaign.")
        @OptionGroup var operation: OperationOptions
        func run() async throws { await operation.run(AdminAPI.campaignPause, .paused, verb: "paused") }
    }

    struct Resume: AsyncParsableCommand {
        static let configuration = operationConfiguration("resume", "Resume a paused campaign.")
        @OptionGroup var operation: OperationOptions
        func run() async throws { await operation.run(AdminAPI.campaignResume, .resumed, verb: "resumed") }
    }

    struct Expire: AsyncParsableCommand {
        static let configuration = operationConfiguration("expire", "Take a campaign down at once, for good (a takedown).")
        @OptionGroup var operation: OperationOptions
        func run() async throws { await operation.run(AdminAPI.campaignExpire, .expired, verb: "expired") }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = operationConfiguration("delete", "Delete a campaign; edges tell clients to drop it.")
        @OptionGroup var operation: OperationOptions
        func run() async throws { await operation.run(AdminAPI.campaignDelete, .deleted, verb: "deleted") }
    }

    static func operationConfiguration(_ name: String, _ abstract: String) -> CommandConfiguration {
        CommandConfiguration(commandName: name, abstract: abstract,
                             discussion: "Example:\n  adctl campaign \(name) 7 --wait")
    }
}

/// The id and options of force, unforce, pause, resume, expire and delete.
struct OperationOptions: ParsableArguments {
    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "The campaign's id.") var id: Int64
    @OptionGroup var write: WriteOptions

    func run(_ method: RPCMethod<CampaignID, CampaignChangeResult>, _ operation: CampaignOperation, verb: String) async {
        await connection.run { client in
            if write.dryRun {
                let current = try await client.call(AdminAPI.campaignGet, CampaignID(id: id)).campaign
                let next: Campaign
                do throws(TransitionError) {
                    next = try CampaignRules.apply(operation, to: current, now: Timestamp(seconds: Date().timeIntervalSince1970))
                } catch {
                    exitWithError("adctl", error.description)
                }
                try Diff.print(from: current, to: next, json: connection.json)
                return
            }
            let started = ContinuousClock.now
            let result = try await client.call(method, CampaignID(id: id))
            try await Writes.finish(result, connection: connection, options: write, client: client, verb: verb, started: started)
        }
    }
}

/// What a write would change, field by field.
enum Diff {
    static func print(from current: Campaign, to next: Campaign, json: Bool) throws {
        let before = try JSONValueEncoder().encode(current).objectValue ?? JSONObject()
        let after = try JSONValueEncoder().encode(next).objectValue ?? JSONObject()
        var changes: [JSONValue] = []
        for key in Set(before.keys).union(after.keys).sorted() where !["updatedAt", "version"].contains(key) && before[key] != after[key] {
            changes.append(["field": .string(key), "from": before[key] ?? .null, "to": after[key] ?? .null])
        }
        if json {
            Swift.print(JSONValue.object(["id": .number(JSONNumber(current.id)), "changes": .array(changes)]).jsonText)
        } else if changes.isEmpty {
            Swift.print("campaign \(current.id): nothing would change")
        } else {
            Swift.print("campaign \(current.id) would change:")
            Table.print(["FIELD", "FROM", "TO"], changes.map { [$0["field"]?.stringValue ?? "", $0["from"]?.jsonText ?? "", $0["to"]?.jsonText ?? ""] })
        }
    }
}

/// `adctl edges`
struct Edges: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Every edge: region, applied seq, lag, last seen, stale.",
                                                    discussion: "Example:\n  adctl edges")
    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        await connection.run { client in
            let list = try await client.call(AdminAPI.edgeList, NoParams())
            if connection.json {
                print(try JSONValueEncoder().encode(list).jsonText)
                return
            }
            Table.print(["EDGE", "REGION", "APPLIED", "LAG", "LAST SEEN", "STALE"], list.edges.map { edge in
                [edge.edgeId, edge.region, String(edge.appliedSeq), String(max(0, list.seq - edge.appliedSeq)), edge.lastSeen.rfc3339,
                 edge.stale ? "stale" : ""]
            })
        }
    }
}

/// `adctl stats [ID]`
struct Stats: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Impressions, clicks and skips per campaign, from the edges' reports.",
                                                    discussion: "Example:\n  adctl stats 7")
    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "One campaign's id (default: all).") var id: Int64?

    func run() async throws {
        await connection.run { client in
            let result = try await client.call(AdminAPI.campaignStats, CampaignStatsParams(id: id))
            if connection.json {
                print(try JSONValueEncoder().encode(result).jsonText)
                return
            }
            Table.print(["ID", "IMPRESSIONS", "CLICKS", "SKIPS"], result.stats.map {
                [String($0.id), String($0.impressions), String($0.clicks), String($0.skips)]
            })
        }
    }
}

extension ConnectionOptions {
    /// Runs `body` with a client; any failure becomes one line and exit status 1.
    func run(_ body: (RPCClient) async throws -> Void) async {
        do {
            let client = try client()
            do {
                try await body(client)
            } catch {
                await client.close()
                throw error
            }
            await client.close()
        } catch {
            exitWithError("adctl", explain(error))
        }
    }
}
