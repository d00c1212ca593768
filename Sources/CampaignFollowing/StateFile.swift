import DurableFiles
import Foundation
import HashTreeCollections
import JSONRPC
import LaunchAdDomain
import Locking

/// The edge's state on disk: a JSON body and its sha256 (a ``ChecksummedFile``) in two copies, `state.json` and
/// `state.b.json`, written in turn in place (``InPlaceFile``): each save overwrites the older copy and syncs it, so a
/// crash in the middle of a save leaves the newer one whole. A copy whose checksum does not match is discarded, never
/// trusted; of the copies that verify, the one with the higher `generation` (a count of saves) is the state.
///
/// Overwriting a file of the same size in place costs the disk a data write and a flush, where replacing it (a new
/// file synced, renamed over the old one, the folder synced) also commits the file system's journal twice: with many
/// edges on one machine, their saves after each change were what its disk spent most on (BENCHMARKS.md's "Through
/// relays"). An older edge's `state.json` (no `generation`) reads as generation 0, except against a copy that has one:
/// then the copy written last is the state, whichever it is, so that an edge taken back to an older release and then
/// forward again starts from what the older one saved, not from the copy it left behind.
///
/// Each campaign's JSON is kept from one save to the next while the campaign stays the same, so a save encodes
/// only the campaigns that changed since the last one and copies the rest.
final class StateFile: Sendable {
    /// The two copies, in the order the first saves go.
    let urls: [URL]
    /// `urls` as paths (a `URL` makes its path again each time it is asked).
    private let paths: [String]
    private let encoded = CampaignMemo { campaign in
        var json = JSONWriter(reservingCapacity: 1024)
        campaign.write(json: &json)
        return json.bytes
    }
    /// Which copy the next save overwrites and the generation of the newest that verifies; `nil` until the first
    /// load or save reads the copies.
    private let slots = Locked<Slots?>(nil)

    private struct Slots {
        /// The copy to overwrite: the one that is not the newest that verifies. A save that fails leaves it so, as
        /// the copy may now be torn and the other is the only whole one.
        var next: Int
        var generation: Int64
    }

    struct Body: Codable {
        var epoch: String
        var seq: Int64
        var campaigns: [Campaign]
        var creatives: [CreativeFacts]
        /// Counts the saves of the folder; absent in an older edge's file.
        var generation: Int64?
    }

    init(directory: URL) {
        urls = [directory.appendingPathComponent("state.json"), directory.appendingPathComponent("state.b.json")]
        paths = urls.map(\.path)
    }

    func save(_ state: EdgeState) throws {
        try slots.withLock { slots in
            let current = slots ?? Self.newest(of: read()).slots
            slots = current
            let bytes = contents(of: state, generation: current.generation + 1)
            try InPlaceFile.overwrite(bytes, at: paths[current.next], filler: ChecksummedFile.filler)
            slots = Slots(next: 1 - current.next, generation: current.generation + 1)
        }
    }

    /// The file's bytes for `state`: `{"checksum":…,"body":…}`, the body being what ``Body`` decodes.
    func contents(of state: EdgeState, generation: Int64) -> [UInt8] {
        let campaigns = encoded.values(inOrderOf: state.campaigns)
        var body = JSONWriter(reservingCapacity: campaigns.reduce(256) { $0 + $1.count + 1 } + state.creatives.count * 160)
        body.writeRaw("{\"epoch\":")
        body.write(string: state.epoch)
        body.writeRaw(",\"seq\":")
        body.write(int: Int(state.seq))
        body.writeRaw(",\"campaigns\":[")
        for (position, json) in campaigns.enumerated() {
            if position > 0 { body.append(UInt8(ascii: ",")) }
            body.writeRaw(json)
        }
        body.writeRaw("],\"creatives\":")
        body.writeArray(state.creatives.values.sorted { $0.sha256 < $1.sha256 }) { $1.write(json: &$0) }
        body.writeRaw(",\"generation\":")
        body.write(int: Int(generation))
        body.append(UInt8(ascii: "}"))
        return ChecksummedFile.contents(body: body.bytes)
    }

    /// The saved state (the newest copy that verifies), or an empty one when none does; `discarded` when a copy
    /// was there but did not verify.
    func load() -> (state: EdgeState, discarded: Bool) {
        let copies = read()
        let (newest, slots) = Self.newest(of: copies)
        self.slots.withLock { $0 = slots }
        let discarded = copies.contains { $0.discarded }
        guard let decoded = newest else { return (.empty, discarded) }
        let state = EdgeState(epoch: decoded.epoch, seq: decoded.seq,
                              campaigns: TreeDictionary(uniqueKeysWithValues: decoded.campaigns.map { ($0.id, $0) }),
                              creatives: Dictionary(uniqueKeysWithValues: decoded.creatives.map { ($0.sha256, $0) }))
        return (state, discarded)
    }

    /// One copy as read: its body, `nil` when missing or (`discarded`) when it does not verify, and when it was last
    /// written.
    private struct Copy {
        var body: Body?
        var discarded: Bool
        var modified: (seconds: Int, nanoseconds: Int)?
    }

    private func read() -> [Copy] {
        zip(urls, paths).map { url, path in
            let (body, discarded) = ChecksummedFile.read(Body.self, at: url)
            var info = stat()
            let written = body != nil && stat(path, &info) == 0 ? (info.st_mtim.tv_sec, info.st_mtim.tv_nsec) : nil
            return Copy(body: body, discarded: discarded, modified: written)
        }
    }

    /// The newest copy that verifies (the first on a tie), and where the next save goes: the other copy.
    private static func newest(of copies: [Copy]) -> (body: Body?, slots: Slots) {
        var best: (index: Int, copy: Copy, body: Body)?
        for (index, copy) in copies.enumerated() {
            guard let body = copy.body else { continue }
            if let current = best, !isNewer(copy, body, than: current.copy, current.body) { continue }
            best = (index, copy, body)
        }
        guard let best else { return (nil, Slots(next: 0, generation: 0)) }
        return (best.body, Slots(next: 1 - best.index, generation: best.body.generation ?? 0))
    }

    /// Whether one copy is newer than another: by generation when both or neither have one; when only one has, the
    /// copy written later (an older release writes `state.json` without one, and leaves `state.b.json` as it was),
    /// the one with a generation on a tie.
    private static func isNewer(_ copy: Copy, _ body: Body, than other: Copy, _ otherBody: Body) -> Bool {
        guard (body.generation == nil) != (otherBody.generation == nil) else {
            return (body.generation ?? 0) > (otherBody.generation ?? 0)
        }
        guard let written = copy.modified, let otherWritten = other.modified, written != otherWritten else {
            return body.generation != nil
        }
        return written > otherWritten
    }
}
