import ArgumentParser

/// `adctl app ...`: what campaignd knows of an app as a whole.
struct AppCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "app", abstract: "An app: its market, time zone and logo, and its numbers.",
                                                    subcommands: [Change.self, Get.self, List.self, Rules.self, AppStats.self])
}
