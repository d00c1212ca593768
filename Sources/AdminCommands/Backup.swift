import ArgumentParser
import DurableFiles
import Foundation
import JSONRPC
import LaunchAdAPI
import LaunchAdDomain

/// `adctl backup FILE`: a consistent copy of an SQLite-backed campaignd's database, made while it runs, read in
/// pieces, checked against the sha256 campaignd gave, and written atomically.
struct Backup: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write a consistent copy of a running campaignd's SQLite database to FILE.",
        discussion: """
            The copy holds every change up to the seq it names and none after, made with SQLite's online backup while
            campaignd goes on answering, under an epoch of its own (edges take a snapshot from a campaignd restored
            from it). Creatives' bytes are not in it: they are files in campaignd's data folder
            (creatives/), named by their sha256 and never changed, so copy that folder after the backup. A campaignd
            on PostgreSQL refuses: back PostgreSQL up with its own tools. deploy/README.md says how to restore.

            Examples:
              adctl backup /var/backups/campaigns-$(date +%F).sqlite
              adctl --endpoint tcp://10.0.0.5:5600 backup campaigns.sqlite --force
            """)

    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "Where to write the copy: a new file (see --force).")
    var file: String
    @Flag(help: "Replace FILE if it exists.")
    var force = false

    func validate() throws {
        guard !file.isEmpty else { throw ValidationError("FILE: must not be empty") }
        var directory: ObjCBool = false
        if FileManager.default.fileExists(atPath: file, isDirectory: &directory) {
            guard !directory.boolValue else { throw ValidationError("FILE: \(file) is a folder") }
            guard force else { throw ValidationError("FILE: \(file) exists (--force replaces it)") }
        }
    }

    func run() async throws {
        let target = URL(fileURLWithPath: file)
        try await connection.run { client in
            let info = try await client.call(AdminAPI.backupCreate, NoParams())
            let partial = target.deletingLastPathComponent().appendingPathComponent(".\(target.lastPathComponent).\(info.backup).partial")
            guard FileManager.default.createFile(atPath: partial.path, contents: nil), let handle = try? FileHandle(forWritingTo: partial) else {
                throw CommandFailure("cannot write \(partial.path)")
            }
            do {
                var offset: Int64 = 0
                while offset < info.bytes {
                    let chunk = try await client.call(AdminAPI.backupRead, BackupReadParams(backup: info.backup, offset: offset))
                    guard chunk.offset == offset, let data = Data(base64Encoded: chunk.data), !data.isEmpty || chunk.last else {
                        throw CommandFailure("campaignd sent a piece of the backup that does not fit at byte \(offset)")
                    }
                    try handle.write(contentsOf: data)
                    offset += Int64(data.count)
                    if chunk.last { break }
                }
                try handle.synchronize()
                try handle.close()
                let sha256 = try FileDigest.sha256(of: partial)
                guard offset == info.bytes, sha256 == info.sha256 else {
                    throw CommandFailure("the copy read is not the one campaignd made (\(offset) of \(info.bytes) bytes, sha256 \(sha256)): nothing written")
                }
                guard rename(partial.path, target.path) == 0 else {
                    throw CommandFailure("cannot write \(file): \(String(cString: strerror(errno)))")
                }
                AtomicFile.syncFolder(target.deletingLastPathComponent())
            } catch {
                try? handle.close()
                try? FileManager.default.removeItem(at: partial)
                throw error
            }
            if connection.json {
                let object: JSONValue = [
                    "file": .string(target.path), "bytes": .number(JSONNumber(info.bytes)), "sha256": .string(info.sha256),
                    "seq": .number(JSONNumber(info.seq)), "epoch": .string(info.epoch),
                ]
                print(object.jsonText)
            } else {
                print(DisplayText.escaped("backup of seq \(info.seq) (epoch \(info.epoch)): \(info.bytes) bytes, sha256 \(info.sha256), written to \(target.path)"))
                print("creatives are not in it: copy campaignd's data folder's creatives/ too")
            }
        }
    }
}
