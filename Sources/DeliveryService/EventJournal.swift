#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import DurableFiles
import Crypto
import Foundation
import Locking

/// The fingerprints of the events the edge has counted, on disk in the cache folder, so that an event a client
/// sends again after a restart is still counted once. Each report round writes those of the round before the counts
/// they belong to (``ReportFile``), as a batch with its own checksum, appended and synced. A batch that does not verify
/// ends what is read, and is cut off: it is a write that a crash cut short.
///
/// Like the ledger's two generations, the fingerprints are in two files, `event-ids.N` and `event-ids.N+1`: when the
/// newer holds a generation, the older is deleted and `event-ids.N+2` begun. So the files hold at least the last
/// generation and at most about two, whatever comes in. `event-ids.key` holds the key; without a valid one, a new key
/// is made and the files, which no longer mean anything, are deleted.
final class EventJournal: Sendable {
    static let keyName = "event-ids.key"
    static let prefix = "event-ids."
    private static let magic: [UInt8] = Array("EVI1".utf8)
    private static let headerSize = 16

    let directory: URL
    /// Fingerprints a file holds before the next one is begun: the ledger's generation.
    let perFile: Int
    let key: EventKey

    private struct Writer {
        var number: Int
        var count: Int
        var size: Int
        /// Whether the key is in its file: no batch is written before it is.
        var keySaved: Bool
        var fd: Int32 = -1
    }
    private let writer: Locked<Writer>

    /// What opening the folder found.
    struct Loaded {
        /// The fingerprints on disk, oldest first.
        var fingerprints: [UInt64]
        /// Whether anything was discarded: a key that was not one, or a batch that did not verify.
        var discarded: Bool
    }

    /// Opens the journal in `directory`: reads (or makes) the key and the fingerprints on disk.
    /// A folder that refuses writes does not stop it: the key is written with the first batch that can be.
    static func open(directory: URL, perFile: Int) -> (EventJournal, Loaded) {
        let keyURL = directory.appendingPathComponent(keyName)
        let files = journalFiles(in: directory)
        var discarded = false
        let key: EventKey
        if let bytes = FileManager.default.contents(atPath: keyURL.path), let saved = EventKey(bytes: [UInt8](bytes)) {
            key = saved
        } else {
            discarded = FileManager.default.fileExists(atPath: keyURL.path) || !files.isEmpty
            for number in files { try? FileManager.default.removeItem(at: file(number, in: directory)) }
            key = EventKey.random()
            let journal = EventJournal(directory: directory, perFile: perFile, key: key,
                                       writer: Writer(number: 1, count: 0, size: 0, keySaved: false))
            return (journal, Loaded(fingerprints: [], discarded: discarded))
        }
        // Only the two newest files count; anything older was left by a crash during a rotation.
        for number in files.dropLast(2) { try? FileManager.default.removeItem(at: file(number, in: directory)) }
        var fingerprints: [UInt64] = []
        var writer = Writer(number: files.last ?? 1, count: 0, size: 0, keySaved: true)
        for number in files.suffix(2) {
            let bytes = [UInt8](FileManager.default.contents(atPath: file(number, in: directory).path) ?? Data())
            let (read, valid) = batches(of: bytes)
            fingerprints += read
            // What follows the last good batch is cut off before the next write (see `append`).
            if valid < bytes.count { discarded = true }
            if number == writer.number { writer.count = read.count; writer.size = valid }
        }
        return (EventJournal(directory: directory, perFile: perFile, key: key, writer: writer), Loaded(fingerprints: fingerprints, discarded: discarded))
    }

    private init(directory: URL, perFile: Int, key: EventKey, writer: Writer) {
        self.directory = directory
        self.perFile = max(1, perFile)
        self.key = key
        self.writer = Locked(writer)
    }

    deinit {
        writer.withLock { if $0.fd >= 0 { close($0.fd) } }
    }

    /// The numbers of the journal's files in `directory`, in order.
    static func journalFiles(in directory: URL) -> [Int] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.compactMap { name in
            guard name.hasPrefix(prefix), let number = Int(name.dropFirst(prefix.count)), number > 0 else { return nil }
            return number
        }.sorted()
    }

    /// The fingerprints of the batches that verify, from the start of `bytes`, and the length they take.
    static func batches(of bytes: [UInt8]) -> (fingerprints: [UInt64], valid: Int) {
        var fingerprints: [UInt64] = []
        var at = 0
        while bytes.count - at >= headerSize, bytes[at..<at + 4].elementsEqual(magic) {
            let count = Int(readLittleEndian(bytes, at + 4, as: UInt32.self))
            let end = at + headerSize + count * 8
            guard count > 0, end <= bytes.count else { break }
            let payload = bytes[(at + headerSize)..<end]
            guard checksum(payload) == readLittleEndian(bytes, at + 8, as: UInt64.self) else { break }
            fingerprints.reserveCapacity(fingerprints.count + count)
            bytes.withUnsafeBytes { raw in
                for offset in stride(from: at + headerSize, to: end, by: 8) {
                    fingerprints.append(UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)))
                }
            }
            at = end
        }
        return (fingerprints, at)
    }

    /// A batch's bytes: the magic, the count, a checksum of the fingerprints (the first 64 bits of their sha256), and
    /// the fingerprints, all little-endian.
    static func batch(_ fingerprints: [UInt64]) -> [UInt8] {
        var payload: [UInt8] = []
        payload.reserveCapacity(fingerprints.count * 8)
        for fingerprint in fingerprints { withUnsafeBytes(of: fingerprint.littleEndian) { payload += $0 } }
        var bytes = magic
        bytes.reserveCapacity(headerSize + payload.count)
        withUnsafeBytes(of: UInt32(fingerprints.count).littleEndian) { bytes += $0 }
        withUnsafeBytes(of: checksum(payload[...]).littleEndian) { bytes += $0 }
        return bytes + payload
    }

    private static func checksum(_ payload: ArraySlice<UInt8>) -> UInt64 {
        SHA256.hash(data: payload).withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)) }
    }

    private static func readLittleEndian<T: FixedWidthInteger>(_ bytes: [UInt8], _ at: Int, as: T.Type) -> T {
        bytes.withUnsafeBytes { T(littleEndian: $0.loadUnaligned(fromByteOffset: at, as: T.self)) }
    }

    /// Appends `fingerprints` as one batch and syncs it; a batch that could not be written whole is cut off again.
    func append(_ fingerprints: [UInt64]) throws {
        guard !fingerprints.isEmpty else { return }
        try writer.withLock { writer in
            if !writer.keySaved {
                try AtomicFile.write(key.bytes, to: directory.appendingPathComponent(Self.keyName))
                writer.keySaved = true
            }
            if writer.count >= perFile {
                // Rotate: begin the next file, then let the one before the current go.
                if writer.fd >= 0 { close(writer.fd) }
                writer.fd = -1
                writer.number += 1
                writer.count = 0
                writer.size = 0
                try? FileManager.default.removeItem(at: Self.file(writer.number - 2, in: directory))
            }
            if writer.fd < 0 {
                let fd = Glibc.open(Self.file(writer.number, in: directory).path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
                guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
                // Where a failed write left the file, whatever the size on disk says.
                if ftruncate(fd, off_t(writer.size)) != 0 {
                    let code = errno
                    close(fd)
                    throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
                }
                writer.fd = fd
                AtomicFile.syncFolder(directory)
            }
            let bytes = Self.batch(fingerprints)
            guard AtomicFile.writeWhole(bytes, to: writer.fd) else {
                let code = errno
                // Reopened (and cut back to the last whole batch) on the next try.
                close(writer.fd)
                writer.fd = -1
                throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
            }
            writer.count += fingerprints.count
            writer.size += bytes.count
        }
    }

    /// The journal's file numbered `number`.
    static func file(_ number: Int, in directory: URL) -> URL { directory.appendingPathComponent("\(prefix)\(number)") }
}
