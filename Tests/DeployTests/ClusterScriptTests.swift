import Foundation
#if canImport(Glibc)
import Glibc
#endif
import LaunchAdTesting
import Testing

/// `deploy/local/cluster.sh`, the one library of shell functions that deploy/local/run.sh, run-postgres.sh and every
/// bench script start processes with: sourced by bash as they source it, with this build's programs, on ephemeral
/// ports; and the rule that keeps it the one place (no script starts a service or a PostgreSQL cluster of its own).
@Suite("deploy/local/cluster.sh", .timeLimit(.minutes(3)))
struct ClusterScriptTests {
    @Test("campaignd, a relay following it and an edge following the relay start on ephemeral ports, a campaign reaches the edge, and stop_cluster ends them all")
    func campaigndRelayAndEdge() async throws {
        let work = try makeTemporaryDirectory("cluster-sh")
        defer { removeTemporaryDirectory(work) }
        let (status, output) = try await Self.bash("""
            start_campaignd "$WORK" campaignd 0
            start_relay "$WORK" relay-1 "$WORK/campaignd.ready" 0
            wait_ready "$WORK/relay-1.ready"
            start_edge "$WORK" edge-1 "$WORK/relay-1.ready" 0
            wait_ready "$WORK/edge-1.ready"
            write_creatives "$WORK"
            upload_creatives "$ADMIN" "$WORK"
            "$BIN/adctl" --endpoint "$ADMIN" campaign create --name cluster --app shop --starts now --ends +1h \\
              --creative "${SHAS[0]}" --wait >/dev/null
            wait_applied "$(field "$WORK/edge-1.ready" client)" 1 1
            "$BIN/adctl" --endpoint "$ADMIN" edges
            echo "PIDS ${pids[*]}"
            stop_cluster
            echo "STOPPED ${#pids[@]}"
            """, work: work)
        #expect(status == 0, "\(output)")
        // campaignd lists the edge behind the relay (VIA): start_edge followed the ready file it was given.
        let edgeRow = output.split(separator: "\n").first { $0.hasPrefix("edge-1 ") }
        #expect(edgeRow?.split(separator: " ").last == "relay-1", "\(output)")
        let pids = Self.pids(in: output)
        #expect(pids.count == 3, "campaignd, the relay and the edge: \(output)")
        #expect(output.contains("STOPPED 0"), "\(output)")
        for pid in pids { #expect(!Self.isRunning(pid), "process \(pid) outlived stop_cluster") }
    }

    @Test("a PostgreSQL cluster of its own (started as bench/failover.py starts it) takes two campaignd and an edge following both; stop_cluster and stop-postgres leave nothing running")
    func postgresPair() async throws {
        let work = try makeTemporaryDirectory("cluster-sh-pg")
        defer { removeTemporaryDirectory(work) }
        let (status, output) = try await Self.bash("""
            trap 'stop_cluster; deploy/local/cluster.sh stop-postgres "$WORK"' EXIT
            DATABASE=$(deploy/local/cluster.sh start-postgres "$WORK")
            echo "DATABASE $DATABASE"
            start_campaignd "$WORK" campaignd-a 0 --database "$DATABASE"
            start_campaignd "$WORK" campaignd-b 0 --database "$DATABASE"
            start_edge "$WORK" edge-1 "$WORK/campaignd-a.ready,$WORK/campaignd-b.ready" 0
            wait_ready "$WORK/edge-1.ready"
            write_creatives "$WORK"
            upload_creatives "$(field "$WORK/campaignd-a.ready" admin),$(field "$WORK/campaignd-b.ready" admin)" "$WORK"
            "$BIN/adctl" --endpoint "$(field "$WORK/campaignd-a.ready" admin),$(field "$WORK/campaignd-b.ready" admin)" \\
              campaign create --name pair --app shop --starts now --ends +1h --creative "${SHAS[1]}" --wait >/dev/null
            wait_applied "$(field "$WORK/edge-1.ready" client)" 1 1
            echo "PIDS ${pids[*]}"
            stop_cluster
            deploy/local/cluster.sh stop-postgres "$WORK"
            echo "STOPPED"
            """, work: work, timeout: .seconds(150))
        #expect(status == 0, "\(output)")
        #expect(output.contains("DATABASE postgres://campaignd@127.0.0.1:"), "\(output)")
        let pids = Self.pids(in: output)
        #expect(pids.count == 3, "two campaignd and the edge: \(output)")
        for pid in pids { #expect(!Self.isRunning(pid), "process \(pid) outlived stop_cluster") }
        // pg_ctl removes postmaster.pid once the server has stopped.
        #expect(!FileManager.default.fileExists(atPath: work.appendingPathComponent("pg/data/postmaster.pid").path), "\(output)")
        #expect(FileManager.default.fileExists(atPath: work.appendingPathComponent("pg/data/PG_VERSION").path))
        // Should the script have died before its trap, the server goes before its folder does.
        _ = try await run(Repository.deploy.appendingPathComponent("local/cluster.sh"), ["stop-postgres", work.path])
    }

    @Test("no script but cluster.sh starts campaignd, deliveryd, relayd or a PostgreSQL cluster of its own")
    func oneStarter() throws {
        let scripts = try ["deploy/local", "bench"].flatMap { folder in
            try FileManager.default.contentsOfDirectory(atPath: Repository.root.appendingPathComponent(folder).path)
                .filter { $0.hasSuffix(".sh") || $0.hasSuffix(".py") }.map { "\(folder)/\($0)" }
        }
        #expect(scripts.contains("deploy/local/run.sh") && scripts.contains("bench/launch-vs-limit.sh"), "\(scripts)")
        // A program of the system run from a binaries folder (a shell script's), or PostgreSQL's own programs (any
        // script's: bench/failover.py starts its campaignd itself, to time a kill -9 of its own child).
        let service = try Regex(#"/(campaignd|deliveryd|relayd)["'\s]"#)
        let postgres = try Regex(#"\b(initdb|pg_ctl)\b"#)
        var offenders: [String] = []
        for script in scripts where script != "deploy/local/cluster.sh" && script != "deploy/local/ensure-deps.sh" {
            let text = try Repository.text(script)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            where !line.trimmingCharacters(in: .whitespaces).hasPrefix("#")
                && (line.contains(postgres) || (script.hasSuffix(".sh") && line.contains(service))) {
                offenders.append("\(script):\(number + 1): \(line)")
            }
        }
        #expect(offenders.isEmpty, "start these through deploy/local/cluster.sh:\n\(offenders.joined(separator: "\n"))")
        // And cluster.sh does start each of them.
        let library = try Repository.text("deploy/local/cluster.sh")
        for program in ["\"$BIN/campaignd\"", "$BIN/deliveryd", "\"$BIN/relayd\"", "\"$PG_BIN/initdb\"", "\"$PG_BIN/pg_ctl\""] {
            #expect(library.contains(program), "cluster.sh no longer runs \(program)")
        }
    }

    /// Runs `body` in bash from the repository root after sourcing cluster.sh, with `BIN` this build's programs,
    /// `WORK` the test's folder and `stop_cluster` as the exit trap.
    static func bash(_ body: String, work: URL, timeout: Duration = .seconds(90)) async throws -> (status: Int32, output: String) {
        let script = """
            set -euo pipefail
            cd "$ROOT"
            . deploy/local/cluster.sh
            trap stop_cluster EXIT

            """ + body
        return try await run(URL(fileURLWithPath: "/bin/bash"), ["-c", script],
                             environment: ["ROOT": Repository.root.path, "BIN": ChildProcess.productsDirectory.path, "WORK": work.path],
                             timeout: timeout)
    }

    /// The process ids the script printed after `PIDS`.
    static func pids(in output: String) -> [pid_t] {
        guard let line = output.split(separator: "\n").first(where: { $0.hasPrefix("PIDS ") }) else { return [] }
        return line.dropFirst("PIDS ".count).split(separator: " ").compactMap { pid_t($0) }
    }

    /// Whether a process with this id still exists (a zombie counts: nobody reaped it).
    static func isRunning(_ pid: pid_t) -> Bool {
        kill(pid, 0) == 0 || errno != ESRCH
    }
}
