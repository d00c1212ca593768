import JSONRPC
import LaunchAdAPI
import Testing

/// The checks campaignd and relays both make of the sync socket's params, each written once in the contract.
@Suite("sync params", .timeLimit(.minutes(1)))
struct SyncParamsTests {
    @Test("a paged snapshot's params: the defaults filled in, after not negative, limit 1 to 10,000, each refusal naming its field")
    func snapshotPage() throws {
        #expect(try SnapshotParams(limit: 5).checked() == (0, 5))
        #expect(try SnapshotParams(after: 7).checked() == (7, SyncAPI.defaultSnapshotPage))
        #expect(try SnapshotParams(after: 0, limit: SyncAPI.maxSnapshotPage).checked() == (0, SyncAPI.maxSnapshotPage))
        #expect(throws: JSONRPCError.invalidParams(field: "after", "must not be negative")) { try SnapshotParams(after: -1).checked() }
        for limit in [0, -3, SyncAPI.maxSnapshotPage + 1] {
            #expect(throws: JSONRPCError.invalidParams(field: "limit", "must be between 1 and 10000")) { try SnapshotParams(limit: limit).checked() }
        }
    }

    @Test("a page of changes holds the limit asked for, 1 to 10,000, 1000 when none is given")
    func changesPage() {
        #expect(ChangesParams(epoch: "e", since: 0).pageLimit == 1000)
        #expect(ChangesParams(epoch: "e", since: 0, limit: 0).pageLimit == 1)
        #expect(ChangesParams(epoch: "e", since: 0, limit: 2500).pageLimit == 2500)
        #expect(ChangesParams(epoch: "e", since: 0, limit: 50_000).pageLimit == 10_000)
    }

    @Test("an edge's or relay's id is 1 to 128 bytes of display text, a region 1 to 64, and a refusal names the field")
    func edgeIDs() {
        #expect(EdgeID.isValid("edge-sh-1") && EdgeID.isValid(String(repeating: "é", count: 64)) && EdgeID.isValid("边缘 1"))
        #expect(!EdgeID.isValid("") && !EdgeID.isValid(String(repeating: "x", count: 129)) && !EdgeID.isValid(String(repeating: "é", count: 65)))
        for hostile in ["edge\n1", "edge\u{1B}]0;x\u{07}", "edge\u{0}", "edge\u{85}", "\u{202E}1-egde", "\u{200B}", " "] {
            #expect(!EdgeID.isValid(hostile), "\(hostile.unicodeScalars.map(\.value))")
            #expect(!EdgeRegion.isValid(hostile))
        }
        #expect(EdgeRegion.isValid("cn-east") && !EdgeRegion.isValid("") && !EdgeRegion.isValid(String(repeating: "r", count: 65)))
        #expect(throws: JSONRPCError.invalidParams(field: "acks[2].edgeId", "must be \(EdgeID.rule)")) { try EdgeID.validate("a\nb", field: "acks[2].edgeId") }
        #expect(EdgeID.rule == "1 to 128 bytes, with a visible character and no control characters or bidirectional controls")
    }
}
