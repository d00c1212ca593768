import DurableFiles
import Foundation
import LaunchAdTesting
import Testing

/// The write every saved file goes through: whole or not at all.
@Suite("atomic file writes", .timeLimit(.minutes(1)))
struct AtomicFileTests {
    @Test("replaces a file whole, leaves no temporary file, makes its folder when it is missing (also after it was removed), and keeps the old file when the bytes cannot be produced")
    func replacesWhole() throws {
        let folder = try makeTemporaryDirectory("atomic")
        defer { removeTemporaryDirectory(folder) }
        let nested = folder.appendingPathComponent("a/b")
        let file = nested.appendingPathComponent("state.json")
        try AtomicFile.write(Array("first".utf8), to: file)
        try AtomicFile.write(to: file) { write in
            try write(Array("sec".utf8))
            try write(Array("ond".utf8))
        }
        #expect(FileManager.default.contents(atPath: file.path) == Data("second".utf8))
        struct Refused: Error {}
        #expect(throws: Refused.self) {
            try AtomicFile.write(to: file) { write in
                try write(Array("third".utf8))
                throw Refused()
            }
        }
        #expect(FileManager.default.contents(atPath: file.path) == Data("second".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: nested.path) == ["state.json"])

        try FileManager.default.removeItem(at: folder.appendingPathComponent("a"))
        try AtomicFile.write(Array("again".utf8), to: file)
        #expect(FileManager.default.contents(atPath: file.path) == Data("again".utf8))
    }
}
