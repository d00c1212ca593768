import JSONRPC
import LaunchAdDomain

/// `backup.create`'s answer: a consistent copy of the database, held by campaignd for ``BackupInfo/keptSeconds``
/// after its last read, to be read in pieces with `backup.read`.
public struct BackupInfo: Codable, Sendable, Equatable {
    /// Names the copy in `backup.read`.
    public var backup: String
    /// Its size in bytes.
    public var bytes: Int64
    /// The sha256 of its bytes, to check the copy read.
    public var sha256: String
    /// The last change the copy holds.
    public var seq: Int64
    /// The copy's own epoch: a campaignd restored from it is a new history to edges, which take a snapshot.
    public var epoch: String
    /// How long campaignd keeps the copy after it was made or last read.
    public var keptSeconds: Int

    public init(backup: String, bytes: Int64, sha256: String, seq: Int64, epoch: String, keptSeconds: Int) {
        self.backup = backup
        self.bytes = bytes
        self.sha256 = sha256
        self.seq = seq
        self.epoch = epoch
        self.keptSeconds = keptSeconds
    }
}

/// `backup.read` params: a piece of a copy.
public struct BackupReadParams: Codable, Sendable {
    public var backup: String
    public var offset: Int64
    /// Bytes to read (default and most: ``maxLength``).
    public var length: Int?

    public static let maxLength = 4 * 1024 * 1024

    public init(backup: String, offset: Int64, length: Int? = nil) {
        self.backup = backup
        self.offset = offset
        self.length = length
    }
}

/// `backup.read`'s answer: the bytes from `offset`, base64; fewer than asked only at the end.
public struct BackupChunk: Codable, Sendable {
    public var offset: Int64
    public var data: String
    /// Whether these are the copy's last bytes.
    public var last: Bool

    public init(offset: Int64, data: String, last: Bool) {
        self.offset = offset
        self.data = data
        self.last = last
    }
}

extension BackupInfo: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object([
            "backup": .string("Names the copy in backup.read.", minLength: 1, maxLength: 64),
            "bytes": .integer("The copy's size in bytes.", minimum: 0),
            "sha256": .sha256("The sha256 of the copy's bytes."),
            "seq": .integer("The last change the copy holds.", minimum: 0),
            "epoch": .string("The copy's own epoch (not the running database's): edges take a snapshot from a campaignd restored from it."),
            "keptSeconds": .integer("How long campaignd keeps the copy after it was made or last read.", minimum: 1),
        ], required: ["backup", "bytes", "sha256", "seq", "epoch", "keptSeconds"])
    }
}

extension BackupReadParams: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object([
            "backup": .string("The copy, as backup.create named it.", minLength: 1, maxLength: 64),
            "offset": .integer("The first byte to read.", minimum: 0),
            "length": .integer("Bytes to read (default and most 4194304).", minimum: 1, maximum: Int64(maxLength)),
        ], required: ["backup", "offset"])
    }
}

extension BackupChunk: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object([
            "offset": .integer("Where these bytes start in the copy.", minimum: 0),
            "data": .base64("The bytes."),
            "last": .boolean("Whether these are the copy's last bytes."),
        ], required: ["offset", "data", "last"])
    }
}

extension AdminAPI {
    public static let backupCreate = RPCMethod<NoParams, BackupInfo>(
        "backup.create", summary: "Make a consistent copy of an SQLite-backed campaignd's database while it runs.",
        description: "The copy is made with SQLite's online backup, so it holds every change up to its seq and none after, and it gets an epoch of its own, so that edges take a snapshot from a campaignd restored from it. Creatives' bytes are files beside the database, named by their sha256 and never changed: copy that folder after the backup. A campaignd on PostgreSQL answers -32010: back PostgreSQL up with its own tools.",
        errors: [APIError.backupUnavailable],
        examples: [RPCExample("a copy", params: NoParams(), result: APIExamples.backup)])
    public static let backupRead = RPCMethod<BackupReadParams, BackupChunk>(
        "backup.read", summary: "Read a piece of a copy made by backup.create.", idempotent: true,
        errors: [APIError.backupUnavailable],
        examples: [RPCExample("the first piece", params: BackupReadParams(backup: APIExamples.backup.backup, offset: 0),
                              result: BackupChunk(offset: 0, data: "U1FMaXRlIGZvcm1hdCAzAA==", last: false))])
}

extension APIExamples {
    static let backup = BackupInfo(backup: "3f9c2a71d04e4b8a", bytes: 1_236_992,
                                   sha256: "9a3c5e1f0b7d2a4c6e8f1a3b5c7d9e0f2a4b6c8d0e1f3a5b7c9d1e3f5a7b9c0d", seq: 18,
                                   epoch: APIExamples.epoch, keptSeconds: 600)
}
