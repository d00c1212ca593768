import DurableFiles
import Foundation
import HashTreeCollections
import JSONRPC
import LaunchAdDomain
import Locking

/// The edge's state on disk: a JSON body and its sha256 (a ``ChecksummedFile``), written atomically; a file whose
/// checksum does not match is discarded, never trusted.
///
/// Each campaign's JSON is kept from one save to the next while the campaign stays the same, so a save encodes
/// only the campaigns that changed since the last one and copies the rest.
final class StateFile: Sendable {
    let url: URL
    private let encoded = Locked<[Int64: (campaign: Campaign, json: [UInt8])]>([:])

    struct Body: Codable {
        var epoch: String
        var seq: Int64
        var campaigns: [Campaign]
        var creatives: [CreativeFacts]
    }

    init(directory: URL) {
        url = directory.appendingPathComponent("state.json")
    }

    func save(_ state: EdgeState) throws {
        try AtomicFile.write(contents(of: state), to: url)
    }

    /// The file's bytes for `state`: `{"checksum":…,"body":…}`, the body being what ``Body`` decodes.
    func contents(of state: EdgeState) throws -> [UInt8] {
        let campaigns = encoded.withLock { cache in
            var kept: [Int64: (campaign: Campaign, json: [UInt8])] = [:]
            kept.reserveCapacity(state.campaigns.count)
            for (id, campaign) in state.campaigns {
                if let entry = cache[id], entry.campaign == campaign {
                    kept[id] = entry
                } else {
                    var json = JSONWriter(reservingCapacity: 1024)
                    campaign.write(json: &json)
                    kept[id] = (campaign, json.bytes)
                }
            }
            cache = kept
            return kept.sorted { $0.key < $1.key }.map(\.value.json)
        }
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
        try JSONValueEncoder().encode(state.creatives.values.sorted { $0.sha256 < $1.sha256 }, into: &body)
        body.append(UInt8(ascii: "}"))
        return ChecksummedFile.contents(body: body.bytes)
    }

    /// The saved state, or `nil` when there is none or it does not verify.
    func load() -> (state: EdgeState, discarded: Bool) {
        let (read, discarded) = ChecksummedFile.read(Body.self, at: url)
        guard let decoded = read else { return (.empty, discarded) }
        let state = EdgeState(epoch: decoded.epoch, seq: decoded.seq,
                              campaigns: TreeDictionary(uniqueKeysWithValues: decoded.campaigns.map { ($0.id, $0) }),
                              creatives: Dictionary(uniqueKeysWithValues: decoded.creatives.map { ($0.sha256, $0) }))
        return (state, false)
    }
}
