import DurableFiles
import Foundation
import LaunchAdDomain
import Testing

@Suite("creative files", .timeLimit(.minutes(1)))
struct CreativeFilesTests {
    @Test("a stored creative's size is read without its bytes; none for one not stored, a name that is not a sha256, or a folder in its place")
    func storedSize() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("creative-files-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let files = try CreativeFiles(directory: folder.path)
        let bytes = Array("not really a png, but bytes all the same".utf8)
        let sha256 = String(repeating: "ab", count: 32)
        #expect(files.storedSize(sha256: sha256) == nil)
        try files.store(bytes, sha256: sha256)
        #expect(files.storedSize(sha256: sha256) == bytes.count)
        #expect(files.storedSize(sha256: "../../etc/passwd") == nil)
        let other = String(repeating: "cd", count: 32)
        try FileManager.default.createDirectory(at: files.root.appendingPathComponent("cd").appendingPathComponent(other),
                                                withIntermediateDirectories: true)
        #expect(files.storedSize(sha256: other) == nil)
    }
}
