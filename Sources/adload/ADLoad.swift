import ArgumentParser

/// `adload`: the load generator; the engine is in LaunchAdLoad.
@main
struct ADLoad: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "adload",
        abstract: "Load generator for deliveryd's client socket, and the measure of force/expire propagation.",
        discussion: """
            adload --endpoint E runs a load: N DEALER connections, each with K requests in flight (closed loop), or a
            fixed total rate (open loop, --rate; latency counted from each request's intended send time, so a stall
            shows). Requests are launch queries (and, with --mix, prefetches and reports) from a seeded population of
            devices. It prints throughput, latency percentiles from an HDR histogram and errors by JSON-RPC code;
            --json prints the same for scripts. Exit status 3 when any request failed or timed out.

            adload propagation --admin E --edge E1 --edge E2 ... forces and expires campaigns through campaignd
            and measures when each edge's launch answer shows it.

            adload seed --admin E --count N --creative SHA256 ... creates N campaigns of one app with a large app's
            mix of targeting, for bench/scale.sh.

            adload writes --admin E --writers N --count M --creative SHA256 measures admin write throughput and latency.
            """,
        subcommands: [Run.self, Propagation.self, Seed.self, Writes.self],
        defaultSubcommand: Run.self
    )
}
