import Crypto
import DurableFiles
import Foundation
import LaunchAdDomain

/// The devices' caps and rotation on disk, `devices.bin` in the cache folder, so that a capped ad stays capped
/// across a restart. Each save writes what ``DeviceHistory`` holds then, whole and atomically (a temporary file,
/// renamed over the old one), so the file holds what memory held at the last save: the same devices, within the same
/// budget (a device takes fewer bytes here than in memory). A kill loses the reports since the last save.
///
/// The bytes, little-endian: `DVS1`, four zero bytes, the ``DeviceKey`` (two 64-bit words); then per device its
/// fingerprint, its rotation (64 bits), its counts of campaigns, variants and impressions (32 bits each) and its
/// elements (64 bits each, as ``DeviceView/withElements(_:)`` gives them), the least recently reported first; then
/// `END1`, the number of devices (64 bits) and the sha256 of everything before it. A file that does not verify is
/// never trusted, nor overwritten: it is set aside whole (``SetAsideFile``).
struct DeviceFile: Sendable {
    static let name = "devices.bin"
    private static let magic: [UInt8] = Array("DVS1".utf8)
    private static let endMagic: [UInt8] = Array("END1".utf8)
    private static let headerSize = 24
    private static let trailerSize = 4 + 8 + 32
    private static let recordHeader = 8 + 8 + 12

    let url: URL

    init(directory: URL) {
        url = directory.appendingPathComponent(Self.name)
    }

    /// What opening the file found.
    struct Loaded {
        var devices: Int
        /// A file that was there and could not be used (it did not verify, or could not be read): set aside with the caps
        /// it may hold, never left for the next save to overwrite (see ``SetAsideFile``).
        var setAside: SetAsideFile.Note?
    }

    /// A history of `budget` bytes holding the devices of the file (under its key), or an empty one with a new key when
    /// there is no file or it could not be used (then set aside). An error when such a file could not be set aside.
    func load(budget: Int) throws -> (DeviceHistory, Loaded) {
        let data: Data
        do {
            // Mapped, not read: the pages are the file's, given back once it is read.
            data = try Data(contentsOf: url, options: .alwaysMapped)
        } catch {
            let setAside = try SetAsideFile.unreadable(url, after: error).map { try SetAsideFile.move(url, reason: $0) }
            return (DeviceHistory(budget: budget), Loaded(devices: 0, setAside: setAside))
        }
        guard let (key, records) = data.withUnsafeBytes({ Self.parse($0) }) else {
            let setAside = try SetAsideFile.move(url, reason: "its framing or checksum does not verify")
            return (DeviceHistory(budget: budget), Loaded(devices: 0, setAside: setAside))
        }
        let history = DeviceHistory(budget: budget, key: key)
        for (fingerprint, view) in records { history.restore(fingerprint, view) }
        return (history, Loaded(devices: records.count, setAside: nil))
    }

    /// The key and the devices of a file's bytes, or `nil` when they do not verify.
    static func parse(_ bytes: UnsafeRawBufferPointer) -> (DeviceKey, [(UInt64, DeviceView)])? {
        guard bytes.count >= headerSize + trailerSize, bytes.prefix(4).elementsEqual(magic) else { return nil }
        let end = bytes.count - trailerSize
        guard bytes[end..<end + 4].elementsEqual(endMagic),
              SHA256.hash(data: UnsafeRawBufferPointer(rebasing: bytes[..<(end + 12)])).elementsEqual(bytes[(end + 12)...]) else { return nil }
        func word(_ at: Int) -> UInt64 { UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: at, as: UInt64.self)) }
        func count(_ at: Int) -> Int { Int(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: at, as: UInt32.self))) }
        let key = DeviceKey(k0: word(8), k1: word(16))
        let expected = word(end + 4)
        var records: [(UInt64, DeviceView)] = []
        var at = headerSize
        while at < end {
            guard end - at >= recordHeader else { return nil }
            let fingerprint = word(at), rotation = Int(Int64(bitPattern: word(at + 8)))
            let campaigns = count(at + 16), variants = count(at + 20), impressions = count(at + 24)
            // What a history holds, no more: a file is trusted only so far.
            guard campaigns <= DeviceView.rotationLimit, variants <= DeviceView.rotationLimit,
                  impressions <= DeviceHistory.keptPerDevice else { return nil }
            let elements = campaigns + variants + 2 * impressions
            at += recordHeader
            guard end - at >= 8 * elements else { return nil }
            func element(_ index: Int) -> Int64 { Int64(bitPattern: word(at + 8 * index)) }
            var times: [Int64: [Timestamp]] = [:]
            for pair in 0..<impressions {
                times[element(campaigns + variants + 2 * pair), default: []].append(Timestamp(milliseconds: element(campaigns + variants + 2 * pair + 1)))
            }
            let view = DeviceView.make(impressions: times, seenCampaigns: (0..<campaigns).map(element),
                                       variantKeys: (0..<variants).map { UInt64(bitPattern: element(campaigns + $0)) }, rotation: rotation)
            records.append((fingerprint, view))
            at += 8 * elements
        }
        guard UInt64(records.count) == expected else { return nil }
        return (key, records)
    }

    /// What a save wrote: the devices, and whether the walk saw every one (the history's slots were not laid out anew
    /// in between, which makes a walk in pieces miss devices; the next save is then still owed).
    struct Saved: Equatable {
        var written: Int
        var whole: Bool
    }

    /// Writes what `history` holds now, in pieces of about a MiB (the history's lock is held for a few thousand
    /// devices at a time, so reports go on meanwhile).
    @discardableResult
    func save(_ history: DeviceHistory) throws -> Saved {
        var written = 0
        var layouts: Int?
        var whole = true
        try AtomicFile.write(to: url) { write in
            var hasher = SHA256()
            var buffer: [UInt8] = []
            buffer.reserveCapacity(1 << 20 + 16_384)
            func flush() throws {
                hasher.update(data: buffer)
                try write(buffer)
                buffer.removeAll(keepingCapacity: true)
            }
            func append<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.littleEndian) { buffer += $0 } }
            buffer += Self.magic
            append(UInt32(0))
            append(history.key.k0)
            append(history.key.k1)
            var position: Int? = 0
            while let from = position {
                let (entries, next, layout) = history.entries(from: from, limit: 4_096)
                position = next
                if layouts == nil { layouts = layout } else if layouts != layout { whole = false }
                for (fingerprint, view) in entries {
                    append(fingerprint)
                    append(Int64(view.rotation))
                    view.withElements { campaigns, variants, impressions, elements in
                        append(UInt32(campaigns))
                        append(UInt32(variants))
                        append(UInt32(impressions))
                        for element in elements { append(element) }
                    }
                    written += 1
                    if buffer.count >= 1 << 20 { try flush() }
                }
            }
            buffer += Self.endMagic
            append(UInt64(written))
            hasher.update(data: buffer)
            buffer += hasher.finalize()
            try write(buffer)
        }
        return Saved(written: written, whole: whole)
    }
}
