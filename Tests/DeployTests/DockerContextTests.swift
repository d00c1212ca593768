import Foundation
#if canImport(Glibc)
import Glibc
#endif
import LaunchAdTesting
import Testing

/// What each Dockerfile's build stage copies from the build context (the repository root, less what .dockerignore
/// leaves out), laid out in a folder as the image's WORKDIR would hold it: SwiftPM must load the manifest there and
/// find the product the stage builds. No container engine is needed for that, and it is what `docker build` failed at
/// when the context lacked a folder the manifest names.
@Suite("Docker build context", .timeLimit(.minutes(3)))
struct DockerContextTests {
    @Test("each Dockerfile copies what the manifest needs: it loads from exactly those files and lists the product built",
          arguments: [("deploy/docker/campaignd.Dockerfile", ["campaignd", "adctl"]), ("deploy/docker/deliveryd.Dockerfile", ["deliveryd"])])
    func contextLoads(_ file: String, _ products: [String]) async throws {
        let swift = try #require(onPath("swift"), "swift is not on PATH")
        let ignored = try Repository.text(".dockerignore").split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !$0.hasPrefix("#") }
        let layout = try makeTemporaryDirectory("docker-context")
        defer { removeTemporaryDirectory(layout) }
        var workdir = "/"
        var checked = false
        for instruction in DeployFilesTests.dockerInstructions(try Repository.text(file)) {
            if instruction.hasPrefix("FROM ") && checked { break }  // the runtime stage copies from the build stage only
            if instruction.hasPrefix("WORKDIR ") { workdir = String(instruction.dropFirst("WORKDIR ".count)) }
            if instruction.hasPrefix("COPY "), !instruction.contains("--from=") {
                let words = instruction.split(separator: " ").dropFirst().map(String.init).filter { !$0.hasPrefix("--") }
                let destination = try #require(words.last)
                for source in words.dropLast() {
                    #expect(FileManager.default.fileExists(atPath: Repository.root.appendingPathComponent(source).path),
                            "\(file) copies \(source), which the repository lacks")
                    #expect(!Self.isIgnored(source, ignored), "\(file) copies \(source), which .dockerignore leaves out of the context")
                    // Only what lands in the source tree counts for the manifest.
                    let target = destination.hasPrefix("/") ? destination : workdir + "/" + destination
                    guard target == workdir || target.hasPrefix(workdir + "/") else { continue }
                    let relative = String(target.dropFirst(workdir.count)).trimmingCharacters(in: CharacterSet(charactersIn: "/."))
                    try Self.copy(source, into: relative.isEmpty ? layout : layout.appendingPathComponent(relative), ignored: ignored)
                }
            }
            if instruction.hasPrefix("RUN "), instruction.contains("swift build"), !checked {
                checked = true
                let (status, output) = try await run(swift, ["package", "--package-path", layout.path, "describe", "--type", "json"],
                                                     timeout: .seconds(120))
                #expect(status == 0, "the manifest does not load from what \(file) copies: \(output)")
                guard status == 0, let start = output.firstIndex(of: "{") else { continue }
                let description = try JSONSerialization.jsonObject(with: Data(output[start...].utf8)) as? [String: Any]
                let listed = Set(((description?["products"] as? [[String: Any]]) ?? []).compactMap { $0["name"] as? String })
                for product in products {
                    #expect(listed.contains(product), "\(product) is not a product of the manifest loaded from what \(file) copies")
                    #expect(instruction.contains("--product \(product)"), "\(file) does not build \(product)")
                }
            }
        }
        #expect(checked, "\(file) has no RUN swift build")
    }

    /// Whether `.dockerignore` leaves `path` (or a folder holding it) out of the context: each pattern as Go's
    /// filepath.Match reads it, against the path and each of its leading folders.
    static func isIgnored(_ path: String, _ patterns: [String]) -> Bool {
        let parts = path.split(separator: "/").map(String.init)
        for count in 1...max(1, parts.count) {
            let prefix = parts.prefix(count).joined(separator: "/")
            if patterns.contains(where: { fnmatch($0, prefix, FNM_PATHNAME) == 0 }) { return true }
        }
        return false
    }

    /// Copies `source` (a file or a folder, relative to the repository) as COPY does: a folder's contents into `target`,
    /// a file into the folder `target`; what `.dockerignore` leaves out stays out.
    static func copy(_ source: String, into target: URL, ignored: [String]) throws {
        let manager = FileManager.default
        let from = Repository.root.appendingPathComponent(source)
        var isDirectory: ObjCBool = false
        guard manager.fileExists(atPath: from.path, isDirectory: &isDirectory) else { return }
        try manager.createDirectory(at: target, withIntermediateDirectories: true)
        guard isDirectory.boolValue else {
            try manager.copyItem(at: from, to: target.appendingPathComponent(from.lastPathComponent))
            return
        }
        for name in try manager.contentsOfDirectory(atPath: from.path) {
            let relative = source + "/" + name
            guard !isIgnored(relative, ignored) else { continue }
            var childIsDirectory: ObjCBool = false
            _ = manager.fileExists(atPath: Repository.root.appendingPathComponent(relative).path, isDirectory: &childIsDirectory)
            if childIsDirectory.boolValue {
                try copy(relative, into: target.appendingPathComponent(name), ignored: ignored)
            } else {
                try manager.copyItem(at: Repository.root.appendingPathComponent(relative), to: target.appendingPathComponent(name))
            }
        }
    }
}
