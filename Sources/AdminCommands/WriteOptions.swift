import ArgumentParser

/// `--wait`, `--wait-timeout`, `--allow-no-edges` and `--dry-run`, shared by every write.
struct WriteOptions: ParsableArguments {
    @Flag(help: "Wait until every edge campaignd knows has applied the change, and show how long each took; stale and silent edges count as not applied, and no edge known is a failure.")
    var wait = false
    @Option(help: "Seconds to wait for the edges.")
    var waitTimeout: Double = 30
    @Flag(help: "With --wait, succeed when campaignd knows no edge (a fresh setup) instead of failing.")
    var allowNoEdges = false
    @Flag(help: "Show what would change, and change nothing.")
    var dryRun = false

    func validate() throws {
        guard waitTimeout > 0, waitTimeout <= 3600 else { throw ValidationError("--wait-timeout must be between 0 and 3600 seconds") }
    }
}
