import ArgumentParser
import JSONRPC
import LaunchAdAPI
import LaunchAdDomain

/// `adctl explain --app A --platform P --app-version V --device ID`
struct Explain: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "What an edge would answer a launch query now, and why every campaign of the app was served, lost or left out.",
        discussion: """
            campaignd runs the edge's own decision engine on its campaigns, for a device the edge has no history of \
            (caps and the rotation start fresh). OUTCOME is served, lost-draw, lower-priority, not-live-yet, ended, \
            paused, expired, targeting (WHY names the field), test-audience, capped or no-creative.

            Examples:
              adctl explain --app shop --platform ios --app-version 5.2.0 --device d-1
              adctl explain --app shop --platform android --app-version 6.0 --device d-2 --region cn-east --screen 1080x2340
            """)
    @OptionGroup var connection: ConnectionOptions
    @Option(help: "The app.") var app: String
    @Option(help: "ios, android or harmonyos.") var platform: String
    @Option(help: "The app's version, such as 5.2.0.") var appVersion: String
    @Option(help: "The device's id.") var device: String
    @Option(help: "The device's region.") var region: String?
    @Option(help: "The device's locale, such as zh-CN.") var locale: String?
    @Option(help: "The screen in pixels, WIDTHxHEIGHT.") var screen: String?
    @Option(help: "cold (default) or hot.") var launchType: String?
    @Option(help: "For a hot launch: seconds the app was in the background.") var backgroundSeconds: Int?

    func validate() throws {
        _ = try params()
    }

    func params() throws -> LaunchQueryParams {
        var size: LaunchQueryParams.Screen?
        if let screen {
            let parts = screen.lowercased().split(separator: "x")
            guard parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]), width > 0, height > 0 else {
                throw ValidationError("--screen must be WIDTHxHEIGHT in pixels, such as 1170x2532 (got \(screen))")
            }
            size = LaunchQueryParams.Screen(width: width, height: height)
        }
        var type: LaunchType?
        if let launchType {
            guard let parsed = LaunchType(rawValue: launchType) else { throw ValidationError("--launch-type must be cold or hot") }
            type = parsed
        }
        let params = LaunchQueryParams(app: app, platform: platform, appVersion: appVersion, region: region, locale: locale,
                                       deviceId: device, screen: size, launchType: type, backgroundSeconds: backgroundSeconds)
        do {
            _ = try params.validated()
        } catch {
            throw ValidationError(error.message)
        }
        return params
    }

    func run() async throws {
        let params = try params()
        try await connection.run { client in
            let result = try await client.call(AdminAPI.launchExplain, params)
            if connection.json {
                print(try JSONValueEncoder().encode(result).jsonText)
                return
            }
            if let id = result.id {
                print(DisplayText.escaped("answer: campaign \(id)" + (result.sha256.map { ", creative \($0.prefix(12))" } ?? "")))
            } else {
                print("answer: no ad")
            }
            if !result.revoked.isEmpty { print("revoked: " + result.revoked.map(String.init).joined(separator: ",")) }
            Table.print(["ID", "NAME", "STATE", "PRI", "FORCED", "OUTCOME", "WHY"], result.campaigns.map { campaign in
                [String(campaign.id), campaign.name, campaign.state.rawValue, String(campaign.priority), campaign.forced ? "yes" : "",
                 campaign.outcome.rawValue, campaign.field?.rawValue ?? ""]
            })
        }
    }
}
