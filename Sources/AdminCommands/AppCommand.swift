import ArgumentParser

/// `adctl app ...`: what campaignd knows of an app as a whole.
struct AppCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "app", abstract: "An app's numbers.",
                                                    subcommands: [AppStats.self])
}
