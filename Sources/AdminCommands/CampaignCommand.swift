import ArgumentParser

/// `adctl campaign ...`
struct CampaignCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "campaign", abstract: "Create, change, inspect and take down campaigns.",
        subcommands: [Create.self, Update.self, Get.self, List.self, Force.self, Unforce.self, Pause.self, Resume.self,
                      Expire.self, Delete.self])
}
