import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LaunchAdTesting
import Yams

/// The checkout the tests run from, and its deploy/ folder.
enum Repository {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let deploy = root.appendingPathComponent("deploy")

    /// Every file under deploy/ (and the .dockerignore beside it), relative paths, sorted.
    static func deployFiles() -> [String] {
        let enumerator = FileManager.default.enumerator(at: deploy, includingPropertiesForKeys: [.isRegularFileKey])
        var files: [String] = []
        while let url = enumerator?.nextObject() as? URL {
            guard (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true else { continue }
            let relative = String(url.standardizedFileURL.path.dropFirst(root.standardizedFileURL.path.count + 1))
            // Keys made by deploy/compose/keys.sh on a developer's machine are not part of the project.
            if relative.hasPrefix("deploy/compose/keys/") { continue }
            files.append(relative)
        }
        return files.sorted()
    }

    static func text(_ relative: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(relative), encoding: .utf8)
    }

    /// Every document of a YAML file, as Yams builds it (mappings as `[String: Any]`, anchors and merges resolved).
    static func yamlDocuments(_ relative: String) throws -> [Any] {
        try Array(Yams.load_all(yaml: text(relative))).compactMap { $0 }
    }
}

/// Runs a program to its end; its exit status and everything it printed.
func run(_ executable: URL, _ arguments: [String], environment: [String: String] = [:],
         timeout: Duration = .seconds(60)) async throws -> (status: Int32, output: String) {
    let directory = try makeTemporaryDirectory("deploy-run")
    defer { removeTemporaryDirectory(directory) }
    let process = try ChildProcess(executable: executable, arguments, directory: directory, environment: environment)
    let status = await process.exitStatus(timeout: timeout)
    if status == nil { process.signal(SIGKILL) }
    return (status ?? -1, process.log)
}

/// A program found on PATH, if any.
func onPath(_ name: String) -> URL? {
    for folder in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
        let candidate = URL(fileURLWithPath: String(folder)).appendingPathComponent(name)
        if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
    }
    return nil
}

/// What a program's `--help` says it takes: its `--flags` and the environment variables named in brackets.
struct ProgramOptions: Sendable {
    var flags: Set<String>
    var environment: Set<String>

    /// `program` (one of this package's) asked for `--help`, after `words` (a subcommand).
    static func of(_ program: String, _ words: [String] = []) async throws -> ProgramOptions {
        let (status, help) = try await run(ChildProcess.productsDirectory.appendingPathComponent(program), words + ["--help"])
        guard status == 0, help.contains("USAGE") else { throw HelpUnreadable(program: program, output: help) }
        return ProgramOptions(flags: Set(matches(of: #"--[a-z][a-z0-9-]*"#, in: help)),
                              environment: Set(matches(of: #"(?<=\[)[A-Z][A-Z0-9_]*(?=\])"#, in: help)))
    }

    struct HelpUnreadable: Error, CustomStringConvertible {
        var program: String
        var output: String
        var description: String { "\(program) --help did not print its usage: \(output)" }
    }
}

/// Every match of a regular expression.
func matches(of pattern: String, in text: String, group: Int = 0) -> [String] {
    guard let expression = try? NSRegularExpression(pattern: pattern, options: [.anchorsMatchLines]) else { return [] }
    return expression.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap { match in
        Range(match.range(at: group), in: text).map { String(text[$0]) }
    }
}

/// One metric family of a Prometheus text exposition: its type, whether it has help, and its series' labels.
struct MetricFamily: Sendable {
    var name: String
    var type: String
    var hasHelp = false
    /// The label names seen on its samples (for a histogram, `le` included).
    var labelNames: Set<String> = []
    var samples = 0
}

/// Parses the Prometheus text format (version 0.0.4) as far as the checks need: families, types, help, labels.
func metricFamilies(_ text: String) -> [String: MetricFamily] {
    var families: [String: MetricFamily] = [:]
    var helped: Set<String> = []
    for line in text.split(separator: "\n").map(String.init) {
        let words = line.split(separator: " ", maxSplits: 3).map(String.init)
        if line.hasPrefix("# TYPE "), words.count >= 4 {
            families[words[2]] = MetricFamily(name: words[2], type: words[3])
        } else if line.hasPrefix("# HELP "), words.count >= 3 {
            helped.insert(words[2])
        } else if !line.hasPrefix("#"), !line.isEmpty {
            let name = String(line.prefix { $0 != "{" && $0 != " " })
            let family = families[name] != nil ? name
                : ["_bucket", "_sum", "_count"].compactMap { suffix in
                    name.hasSuffix(suffix) ? String(name.dropLast(suffix.count)) : nil
                }.first { families[$0]?.type == "histogram" }
            guard let family else { continue }
            families[family]?.samples += 1
            if let open = line.firstIndex(of: "{"), let close = line.lastIndex(of: "}") {
                let labels = String(line[line.index(after: open)..<close])
                for label in matches(of: #"([a-zA-Z_][a-zA-Z0-9_]*)="#, in: labels, group: 1) {
                    families[family]?.labelNames.insert(label)
                }
            }
        }
    }
    for name in helped { families[name]?.hasHelp = true }
    return families
}

/// The body of `http://address/path`.
func httpGet(_ address: String, _ path: String) async throws -> (status: Int, body: String) {
    let (data, response) = try await URLSession.shared.data(from: URL(string: "http://\(address)\(path)")!)
    return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
}
