@testable import CampaignFollowing
import DurableFiles
import Foundation
import Logging
import Testing

/// The cache folder's health is kept per part (the state file, the creatives' folder): a write of one never clears
/// the refusal of the other. A state file written while a download's creative is refused once made the edge think the
/// folder took writes again, drop the creatives waiting for it, and download them again.
@Suite("the cache folder's health, per part", .timeLimit(.minutes(1)))
struct CacheHealthTests {
    struct Refused: Error {}

    /// A persister over a fresh cache folder, with its health and memory cache.
    func persister(_ directory: URL) throws -> (StatePersister, CacheHealth, CreativeCache, StateFile) {
        let files = try CreativeFiles(directory: directory.path)
        let stateFile = StateFile(directory: directory)
        let health = CacheHealth()
        let cache = CreativeCache(files: files, budget: 1 << 20)
        let configuration = FollowingConfiguration(cacheDirectory: directory.path, followerId: "edge-1")
        let persister = StatePersister(configuration: configuration, cell: StateCell(), creativeFiles: files,
                                       stateFile: stateFile, cache: cache, cacheHealth: health, logger: Logger(label: "test"))
        return (persister, health, cache, stateFile)
    }

    func temporaryFolder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("cache-health-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test("a state file written leaves a creative's refusal standing; a creative written clears it")
    func partsAreKeptApart() throws {
        let directory = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (persister, health, cache, _) = try persister(directory)
        // A download's store failed (its creative not yet in memory) while a save, with nothing in memory, runs.
        #expect(health.record(Refused(), for: .creatives))
        persister.saveNow()
        #expect(!health.writable && health.refuses(.creatives) && !health.refuses(.stateFile))
        #expect(health.lastError != nil)
        #expect(health.stateWrites == 1)

        // A creative in memory that the disk takes: the refusal is cleared by the save that writes it.
        let bytes = [UInt8]("a creative".utf8), sha256 = CreativeFiles.name(of: bytes)
        #expect(cache.pin(bytes, sha256: sha256))
        persister.saveNow()
        #expect(health.writable && health.lastError == nil)
        #expect(!cache.hasPinned)
        let stored = directory.appendingPathComponent("creatives/\(sha256.prefix(2))/\(sha256)")
        #expect(FileManager.default.contents(atPath: stored.path) == Data(bytes))
    }

    @Test("a save whose creative is refused, but whose state file is written, leaves the cache unwritable until the creative is")
    func creativeRefusedStateWritten() throws {
        let directory = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (persister, health, cache, _) = try persister(directory)
        let folder = directory.appendingPathComponent("creatives"), aside = directory.appendingPathComponent("aside")
        try FileManager.default.moveItem(at: folder, to: aside)
        try Data("not a folder".utf8).write(to: folder)
        let bytes = [UInt8]("waits in memory".utf8), sha256 = CreativeFiles.name(of: bytes)
        #expect(cache.pin(bytes, sha256: sha256))
        persister.saveNow()
        #expect(!health.writable && health.refuses(.creatives) && !health.refuses(.stateFile))
        #expect(cache.hasPinned)
        persister.saveNow()
        #expect(!health.writable, "a second save, the state file written again, still cannot write the creative")

        try FileManager.default.removeItem(at: folder)
        try FileManager.default.moveItem(at: aside, to: folder)
        persister.saveNow()
        #expect(health.writable && !cache.hasPinned)
    }

    @Test("a probe tries the creatives' folder and each waiting creative's own, and leaves nothing behind")
    func probe() throws {
        let directory = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: directory) }
        let files = try CreativeFiles(directory: directory.path)
        let blocked = String(repeating: "ab", count: 32), other = String(repeating: "cd", count: 32)
        try files.probe(for: [blocked, other])
        // A creative's folder taken by a file: only the probe that names a creative stored there fails.
        let shard = files.root.appendingPathComponent("ab")
        try FileManager.default.removeItem(at: shard)
        try Data("not a folder".utf8).write(to: shard)
        try files.probe(for: [other])
        #expect(throws: (any Error).self) { try files.probe(for: [other, blocked]) }
        // The creatives' folder itself taken by a file: every probe fails.
        let aside = directory.appendingPathComponent("aside")
        try FileManager.default.moveItem(at: files.root, to: aside)
        try Data("not a folder".utf8).write(to: files.root)
        #expect(throws: (any Error).self) { try files.probe(for: []) }
        try FileManager.default.removeItem(at: files.root)
        try FileManager.default.moveItem(at: aside, to: files.root)
        try files.probe(for: [])
        // Only the folders remain: the probes' files are gone.
        let left = try FileManager.default.subpathsOfDirectory(atPath: files.root.path).sorted()
        #expect(left == ["ab", "cd"], "\(left)")
    }
}
