import ArgumentParser
import Foundation
import JSONRPC
import LaunchAdAPI
import LaunchAdDomain

extension AppCommand {
    /// `adctl app set APP`
    struct Change: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set",
            abstract: "Set an app's market, time zone or logo (only those given change).",
            discussion: """
                The first set of an app must give --market (an app never set reads as global, in UTC); later ones \
                change only the options given, and at least one is needed. The market's rules hold its campaigns \
                from then on (create, update, resume and force refuse a campaign that breaks them); the live, \
                scheduled and paused campaigns that already break them are listed, and none is changed: pause or \
                update them. --dry-run shows the app as it would be and that list, and changes nothing.

            """ + AppCommand.rulesHelp + """


                Examples:
                  adctl app set com.example.shop --market cn --timezone Asia/Shanghai
                  adctl app set com.example.shop --logo 27022c39... (an uploaded creative's sha256; "" removes it)
                  adctl app set com.example.shop --market eu --dry-run
                  adctl app set com.example.shop --report-pause 50 (a campaign reported 50 times in the current or previous UTC hour is paused)
                """)
        @OptionGroup var connection: ConnectionOptions
        @Argument(help: "The app's id, as campaigns name it.") var app: String
        @Option(help: "cn, eu or global.") var market: String?
        @Option(help: "An IANA time zone name, such as Asia/Shanghai: where the app's day begins (its stats and goals by day begin at its midnight).") var timezone: String?
        @Option(help: "The sha256 of an uploaded creative shown below a half ad; \"\" removes it.") var logo: String?
        @Option(help: "Pause a campaign of the app when its reports of the current or previous hour (UTC) cross N (\(AppSettings.reportPauseRange.lowerBound) to \(AppSettings.reportPauseRange.upperBound)); 0 turns it off.") var reportPause: Int?
        @Flag(help: "Show what would change, and change nothing.") var dryRun = false

        func validate() throws {
            if market == nil, timezone == nil, logo == nil, reportPause == nil {
                throw ValidationError("give --market, --timezone, --logo or --report-pause")
            }
            if let reportPause, reportPause != 0, !AppSettings.reportPauseRange.contains(reportPause) {
                throw ValidationError("--report-pause must be \(AppSettings.reportPauseRange.lowerBound) to \(AppSettings.reportPauseRange.upperBound), or 0 to turn it off (got \(reportPause))")
            }
            if let market, Market(rawValue: market) == nil { throw ValidationError("--market must be cn, eu or global (got \(market))") }
        }

        func run() async throws {
            let patch = AppPatch(app: app, market: market.flatMap(Market.init), timezone: timezone, logo: logo, reportPause: reportPause)
            try await connection.run { client in
                let result: AppSetResult
                if dryRun {
                    let current = try await client.call(AdminAPI.appGet, AppParams(app: app)).app
                    // An app never set has no updatedAt: campaignd would want its market.
                    if current.updatedAt == nil, patch.market == nil {
                        throw CommandFailure("market: is required when an app is first set (cn, eu or global)")
                    }
                    let next: AppSettings
                    do throws(FieldError) { next = try current.merging(patch) } catch { throw CommandFailure(error.description) }
                    let campaigns = try await client.call(AdminAPI.campaignList, CampaignListParams(app: app)).campaigns
                    result = AppSetResult(app: next, breaking: BreakingCampaign.among(campaigns, in: next.market))
                } else {
                    result = try await client.call(AdminAPI.appSet, patch)
                }
                if connection.json {
                    print(try JSONValueEncoder().encode(result).jsonText)
                    return
                }
                print(DisplayText.escaped("app \(result.app.app) \(dryRun ? "would be" : "set"): \(AppCommand.summary(result.app))"))
                if result.breaking.isEmpty { return }
                print("\(result.breaking.count) live, scheduled or paused campaign(s) break the \(result.app.market.rawValue) market's rules (none was changed):")
                Table.print(["ID", "NAME", "STATE", "FIELD", "RULE", "SOURCE"], result.breaking.flatMap { campaign in
                    campaign.breaches.map { [String(campaign.id), campaign.name, campaign.state.rawValue, $0.field, $0.rule, $0.source] }
                })
            }
        }
    }

    /// `adctl app get APP`
    struct Get: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "get", abstract: "Show an app: its market, time zone and logo, and its latest changes.",
            discussion: "Example:\n  adctl app get com.example.shop")
        @OptionGroup var connection: ConnectionOptions
        @Argument(help: "The app's id.") var app: String

        func run() async throws {
            try await connection.run { client in
                let result = try await client.call(AdminAPI.appGet, AppParams(app: app))
                if connection.json {
                    print(try JSONValueEncoder().encode(result).jsonText)
                    return
                }
                print(DisplayText.escaped("app \(result.app.app): \(AppCommand.summary(result.app))"))
                guard !result.changes.isEmpty else { return print("never set: the defaults") }
                Table.print(["AT", "ACTOR", "MARKET", "TIMEZONE", "LOGO"], result.changes.map { change in
                    [change.at.rfc3339, change.actor, change.after.market.rawValue, change.after.timezone, change.after.logo ?? "-"]
                })
            }
        }
    }

    /// `adctl app list`
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "Every app set, with its market and time zone (an app never set is global, in UTC).",
            discussion: "Example:\n  adctl app list --json")
        @OptionGroup var connection: ConnectionOptions

        func run() async throws {
            try await connection.run { client in
                let result = try await client.call(AdminAPI.appList, NoParams())
                if connection.json {
                    print(try JSONValueEncoder().encode(result).jsonText)
                    return
                }
                Table.print(["APP", "MARKET", "TIMEZONE", "LOGO", "REPORT PAUSE", "UPDATED"], result.apps.map { app in
                    [app.app, app.market.rawValue, app.timezone, app.logo ?? "-", app.reportPause.map(String.init) ?? "-", app.updatedAt?.rfc3339 ?? "-"]
                })
            }
        }
    }
}

extension AppCommand {
    /// `adctl app rules`
    struct Rules: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rules", abstract: "The rules each market holds its apps' campaigns to, with their sources.",
            discussion: "campaignd checks them on campaign create, update, resume and force; --markdown prints the table proto-docs shows.\n\nExample:\n  adctl app rules")
        @Flag(help: "A Markdown table.") var markdown = false

        func run() {
            if markdown { return print(MarketRules.markdownTable) }
            Table.print(["MARKET", "FIELD", "RULE", "SOURCE"], MarketRules.all.map { [$0.market.rawValue, $0.field.stringValue, $0.rule, $0.source] })
        }
    }

    /// An app in one line.
    static func summary(_ app: AppSettings) -> String {
        "market \(app.market.rawValue), timezone \(app.timezone), logo \(app.logo ?? "none"), report pause \(app.reportPause.map { "at \($0) an hour" } ?? "off")"
    }

    /// The markets' rules, from the table campaignd checks.
    static var rulesHelp: String {
        "    The rules by market:\n" + MarketRules.all.map { "      \($0.market.rawValue): \($0.field.stringValue) \($0.rule) (\($0.source))" }
            .joined(separator: "\n")
    }
}
