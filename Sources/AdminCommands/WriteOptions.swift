import ArgumentParser

/// `--wait`, `--wait-timeout` and `--dry-run`, shared by every write.
struct WriteOptions: ParsableArguments {
    @Flag(help: "Wait until every live edge has applied the change, and show how long each took.")
    var wait = false
    @Option(help: "Seconds to wait for the edges.")
    var waitTimeout: Double = 30
    @Flag(help: "Show what would change, and change nothing.")
    var dryRun = false
}
