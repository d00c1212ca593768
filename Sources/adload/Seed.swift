import ArgumentParser
import Foundation
import LaunchAdAPI
import LaunchAdLoad
import LaunchAdRuntime

/// `adload seed`: the campaigns of a scale run, created through campaignd.
struct Seed: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Create many campaigns of one app with a large app's mix of targeting (for bench/scale.sh).",
        discussion: """
            Creates campaigns --first ..< --first + --count of --app, live from a minute ago for a day, each with the
            given creatives: a third target a platform, a fifth a region, a seventh a version range, with priorities
            0 to 100 and weights 1 to 1000 spread over the campaigns; campaign i is the same in every run.
            """
    )

    @Option(help: "campaignd's admin endpoint. [ADLOAD_ADMIN_ENDPOINT]")
    var admin = Environment.string("ADLOAD_ADMIN_ENDPOINT", default: DefaultEndpoints.campaignAdmin)
    @Option(help: "App of the campaigns.")
    var app = "shop"
    @Option(help: "Number of the first campaign (campaign i's targeting, priority and weight follow from i).")
    var first = 0
    @Option(help: "Campaigns to create.")
    var count: Int
    @Option(name: .customLong("creative"), help: "The sha256 of an uploaded creative every campaign shows (repeat for each).")
    var creatives: [String] = []
    @Option(help: "Seconds a call may take.")
    var timeout = 10.0

    func validate() throws {
        guard first >= 0 else { throw ValidationError("--first: must not be negative") }
        guard (1...1_000_000).contains(count) else { throw ValidationError("--count: must be 1 to 1000000") }
        guard !creatives.isEmpty else { throw ValidationError("--creative: name at least one") }
        guard timeout > 0, timeout <= 600 else { throw ValidationError("--timeout: must be above 0 and at most 600 seconds") }
    }

    func run() throws {
        do {
            try SeedRunner.run(admin: admin, curve: nil, app: app, first: first, count: count, creatives: creatives, timeout: timeout) { line in
                FileHandle.standardError.write(Data("\(line)\n".utf8))
            }
        } catch {
            fail("\(error)")
        }
        print("created \(count) campaigns of \(app)")
    }
}
