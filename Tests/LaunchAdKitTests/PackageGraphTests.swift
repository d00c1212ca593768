import Foundation
import Testing

/// An app links LaunchAdKit alone: nothing of the servers, no libzmq, no package but Foundation.
@Suite("LaunchAdKit depends on Foundation only", .timeLimit(.minutes(1)))
struct PackageGraphTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test("its files import Foundation (and FoundationNetworking on Linux) and nothing else")
    func importsFoundationOnly() throws {
        let folder = Self.root.appendingPathComponent("Sources/LaunchAdKit")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".swift") }
        #expect(files.count > 5)
        var imported: Set<String> = []
        for file in files {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            for line in text.split(separator: "\n") {
                let words = line.split(separator: " ")
                if let index = words.firstIndex(of: "import"), words[..<index].allSatisfy({ $0.hasPrefix("@") || $0 == "public" }),
                   index + 1 < words.count {
                    imported.insert(String(words[index + 1]))
                }
            }
        }
        #expect(imported == ["Foundation", "FoundationNetworking"])
    }

    @Test("Package.swift declares it with no dependency, and as a library product")
    func declaredAlone() throws {
        let manifest = try String(contentsOf: Self.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        #expect(manifest.contains(#".target(name: "LaunchAdKit"),"#))
        #expect(manifest.contains(#".library(name: "LaunchAdKit", targets: ["LaunchAdKit"])"#))
    }
}
