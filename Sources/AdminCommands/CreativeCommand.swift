import ArgumentParser

/// `adctl creative ...`
struct CreativeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "creative", abstract: "Manage creatives.",
                                                    subcommands: [Upload.self])
}
