import Foundation
import Testing

/// The repository's top level: one folder for each kind of thing, so a newcomer never has to guess which of two
/// similar names holds what (there were `Benchmarks/` beside `bench/` and `Fuzz/` beside `fuzz/`).
@Suite("Repository layout", .timeLimit(.minutes(1)))
struct RepositoryLayoutTests {
    @Test("no two top-level names differ by case alone, and the benchmark and fuzzing programs sit in bench/ and fuzz/")
    func oneFolderEach() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Repository.root.path).filter { !$0.hasPrefix(".") }
        let clashes = Dictionary(grouping: names, by: { $0.lowercased() }).values.filter { $0.count > 1 }
        #expect(clashes.isEmpty, "top-level names that differ by case alone: \(clashes)")
        #expect(!names.contains("Benchmarks") && !names.contains("Fuzz"), "\(names.sorted())")
        // Every target the manifest places outside Sources/ and Tests/ is a benchmark program or the fuzz target.
        let manifest = try Repository.text("Package.swift")
        let paths = manifest.matches(of: try Regex(#"[^(]path: "([^"]+)""#)).compactMap { $0.output[1].substring.map(String.init) }
        #expect(!paths.isEmpty)
        for path in paths {
            #expect(path.hasPrefix("bench/") || path.hasPrefix("fuzz/"), "\(path): benchmark programs go in bench/, the fuzz target in fuzz/")
            #expect(FileManager.default.fileExists(atPath: Repository.root.appendingPathComponent(path).path), "\(path) is missing")
        }
    }
}
