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
}
