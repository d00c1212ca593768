import Foundation
import LaunchAdTesting
import Testing

/// An app adds the SDK alone: its own package under sdk/, with no package dependency, LaunchAdKit on Foundation only
/// and LaunchAdKitUI's files all under `#if canImport(UIKit)`.
@Suite("the SDK is a package of its own that depends on nothing", .timeLimit(.minutes(2)))
struct PackageGraphTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let sdk = root.appendingPathComponent("sdk")

    /// The modules a target's files import.
    static func imports(of target: String) throws -> Set<String> {
        let folder = sdk.appendingPathComponent("Sources/\(target)")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".swift") }
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
        return imported
    }

    @Test("LaunchAdKit's files import Foundation (and FoundationNetworking on Linux) and nothing else")
    func importsFoundationOnly() throws {
        #expect(try Self.imports(of: "LaunchAdKit") == ["Foundation", "FoundationNetworking"])
    }

    @Test("LaunchAdKitUI imports LaunchAdKit and Apple's frameworks, each file wholly under #if canImport(UIKit)")
    func uiUnderUIKit() throws {
        let imported = try Self.imports(of: "LaunchAdKitUI")
        #expect(imported.contains("UIKit") && imported.contains("LaunchAdKit"))
        #expect(imported.isSubset(of: ["Foundation", "UIKit", "AVFoundation", "ImageIO", "QuartzCore", "CoreGraphics", "LaunchAdKit"]))
        let folder = Self.sdk.appendingPathComponent("Sources/LaunchAdKitUI")
        for file in try FileManager.default.contentsOfDirectory(atPath: folder.path) where file.hasSuffix(".swift") {
            let code = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8).split(separator: "\n")
                .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty && !$0.hasPrefix("//") }
            #expect(code.first == "#if canImport(UIKit)" && code.last == "#endif", "\(file)")
        }
    }

    @Test("swift package dump-package in sdk/ shows no dependency; the root depends on it by path")
    func dumpPackage() throws {
        let dumped = try SpawnedProcess.run("swift", ["package", "--package-path", Self.sdk.path, "dump-package"])
        #expect(dumped.termination == .exited(0), "\(dumped.error)")
        let manifest = try #require(try JSONSerialization.jsonObject(with: Data(dumped.output.utf8)) as? [String: Any])
        #expect((manifest["dependencies"] as? [Any])?.isEmpty == true)
        let products = (manifest["products"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
        #expect(Set(products) == ["LaunchAdKit", "LaunchAdKitUI", "LaunchAdKitTesting"])
        let platforms = (manifest["platforms"] as? [[String: Any]] ?? []).compactMap { platform -> String? in
            guard let name = platform["platformName"] as? String, let version = platform["version"] as? String else { return nil }
            return "\(name) \(version)"
        }
        #expect(platforms.contains("ios 15.0"))
        let targets = manifest["targets"] as? [[String: Any]] ?? []
        let kit = try #require(targets.first { $0["name"] as? String == "LaunchAdKit" })
        #expect((kit["dependencies"] as? [Any])?.isEmpty == true)
        let root = try String(contentsOf: Self.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        #expect(root.contains(#".package(path: "sdk")"#))
        #expect(!root.contains(#".target(name: "LaunchAdKit""#))
    }
}
