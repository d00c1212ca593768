// swift-tools-version: 6.1
// The launch-ad delivery system: layered targets, each pointing one way (deploy/local/check-package-graph.py keeps
// every target's dependencies equal to its imports; the README's layout table says which folder holds what).
// Locking (the one lock type) sits below everything that shares state.
//
//   CZeroMQ (libzmq) -> ZeroMQ (thin wrapper) --------------------.
//   JSONRPC (JSON codec, typed methods, dispatcher; no ZeroMQ) ---+-> ZMQRPC (JSON-RPC server, client, typed pub/sub)
//   LaunchAdDomain (campaigns, decisions; no I/O) -> LaunchAdAPI (the wire contract: methods, params, answers)
//   DurableFiles (atomic files, creatives by sha256)
//   ZMQRPC, LaunchAdAPI, DurableFiles -> LaunchAdRuntime (what every daemon needs: ready files, keys, the bind policy,
//                                        logs, metrics, the HTTP server's set-up)
//   CampaignStore (the Store interface, its SQLite and PostgreSQL engines) --------.
//   CampaignConsole (the web console, over the admin dispatcher; no store) --------+-> CampaignService -> campaignd
//   LaunchAdRuntime -> CampaignFollowing (following campaignd or a relay: the state and its file, the sync engine,
//                      the creative cache; no store) ---------------.
//   CHeap (glibc allocator settings) -------------------------------+-> DeliveryService (the edge: answers, HTTP,
//                                                                        devices, reports) -> deliveryd
//   CampaignFollowing -> RelayService (the regional tier: serves the edges below as campaignd does) -> relayd
//                        (the edge and the relay share CampaignFollowing; neither depends on the other)
//   AdminCommands (every adctl command) -> adctl;   SeededRandomness -> LaunchAdLoad (the load engine) -> adload
//   sdk/ (the client SDK, a package of its own with no dependency: LaunchAdKit, LaunchAdKitUI, LaunchAdKitTesting)
//     LaunchAdKit -> AdSimCommands -> adsim;   LaunchAdKit's AdLayout -> CampaignConsole (the phone preview)
//   bench/ (outside `swift test`): rpc-bench-server (over ZMQRPC), query-microbench (over DeliveryService, CampaignFollowing)
//   fuzz/: CodecFuzzing (the codec's invariants) -> codec-fuzz (libFuzzer), and HostileInputTests
//   LaunchAdTesting (harnesses: child processes, services in process, PostgreSQL clusters, keys) -> Tests/*
import PackageDescription

let package = Package(
    name: "launch-ads",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "ZeroMQ", targets: ["ZeroMQ"]),
        .library(name: "JSONRPC", targets: ["JSONRPC"]),
        .library(name: "ZMQRPC", targets: ["ZMQRPC"]),
        .executable(name: "campaignd", targets: ["campaignd"]),
        .executable(name: "deliveryd", targets: ["deliveryd"]),
        .executable(name: "adctl", targets: ["adctl"]),
        .executable(name: "adload", targets: ["adload"]),
        .executable(name: "relayd", targets: ["relayd"]),
        .executable(name: "adsim", targets: ["adsim"]),
    ],
    dependencies: [
        // The SDK an app adds (LaunchAdKit, LaunchAdKitUI): its own package, so an app resolves none of the below.
        .package(path: "sdk"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.6.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.0.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.0.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.0.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.80.0"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.0.0"),
        .package(url: "https://github.com/apple/swift-atomics", from: "1.2.0"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.1.0"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.1.0"),
        // Tests only: the deploy tests parse the YAML files under deploy/.
        .package(url: "https://github.com/jpsim/Yams", from: "6.0.0"),
    ],
    targets: [
        // MARK: The project's lock for shared mutable state: Synchronization.Mutex, or a pthread mutex that
        // ThreadSanitizer sees when deploy/local/sanitize.sh thread builds with -D LAUNCHAD_TSAN
        .target(name: "Locking"),

        // MARK: ZeroMQ
        .systemLibrary(
            name: "CZeroMQ",
            providers: [.apt(["libzmq3-dev"])]
        ),
        .target(name: "ZeroMQ", dependencies: ["CZeroMQ", "Locking"]),

        // MARK: JSON-RPC 2.0 (knows nothing of ZeroMQ)
        .target(name: "JSONRPC"),

        // MARK: JSON-RPC over ZeroMQ: server (ROUTER), client (DEALER), publisher and subscriber
        .target(
            name: "ZMQRPC",
            dependencies: [
                "Locking", "ZeroMQ", "JSONRPC",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),

        // MARK: What both services need to run: ready files, keys, the bind policy, log set-up
        .target(
            name: "LaunchAdRuntime",
            dependencies: [
                "Locking", "ZMQRPC", "ZeroMQ", "JSONRPC", "LaunchAdAPI", "LaunchAdDomain", "DurableFiles",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),

        // MARK: Domain and services
        .target(name: "LaunchAdDomain", dependencies: ["JSONRPC"]),
        // The typed methods of every socket, shared by servers, clients, adctl and the OpenRPC documents.
        .target(name: "LaunchAdAPI", dependencies: ["LaunchAdDomain", "JSONRPC"]),
        // Files written atomically, and creatives' bytes named by their sha256: what both services keep on disk.
        .target(name: "DurableFiles", dependencies: ["LaunchAdDomain", .product(name: "Crypto", package: "swift-crypto")]),
        // campaignd's store: the interface its handlers use, the embedded SQLite engine (GRDB) and the shared PostgreSQL one.
        .target(
            name: "CampaignStore",
            dependencies: [
                "LaunchAdDomain", "LaunchAdAPI", "JSONRPC", "DurableFiles", "Locking",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // campaignd's web console: pages, SVG charts, the phone preview (drawn from LaunchAdKit's AdLayout), sign-in, CSRF,
        // Server-Sent Events.
        .target(
            name: "CampaignConsole",
            dependencies: [
                "Locking", "JSONRPC", "LaunchAdAPI", "LaunchAdDomain", "LaunchAdRuntime",
                // AdLayout: the preview draws from the model the phone draws from.
                .product(name: "LaunchAdKit", package: "sdk"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .target(
            name: "CampaignService",
            dependencies: [
                "Locking", "LaunchAdDomain", "LaunchAdAPI", "CampaignConsole", "CampaignStore", "DurableFiles", "LaunchAdRuntime", "ZMQRPC", "JSONRPC", "ZeroMQ",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // Following an upstream (campaignd, or a relay): the followed state and its file, the sync engine, the creative
        // cache. The edge and the relay both build on it; neither depends on the other.
        .target(
            name: "CampaignFollowing",
            dependencies: [
                "Locking", "LaunchAdDomain", "LaunchAdAPI", "DurableFiles", "LaunchAdRuntime", "ZMQRPC", "JSONRPC", "ZeroMQ",
                .product(name: "Atomics", package: "swift-atomics"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HashTreeCollections", package: "swift-collections"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .target(name: "CHeap"),
        .target(
            name: "DeliveryService",
            dependencies: [
                "CampaignFollowing", "CHeap", "Locking", "LaunchAdDomain", "LaunchAdAPI", "DurableFiles", "LaunchAdRuntime", "ZMQRPC", "JSONRPC", "ZeroMQ",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdHTTP2", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // The regional tier: follows upstream as an edge does (CampaignFollowing) and serves the edges below as campaignd does.
        .target(
            name: "RelayService",
            dependencies: [
                "CampaignFollowing", "Locking", "LaunchAdDomain", "LaunchAdAPI", "LaunchAdRuntime", "ZMQRPC", "JSONRPC", "ZeroMQ",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),

        // MARK: Load generation: the engine of adload (closed and open loops, propagation), kept out of the executable
        // A seeded random number generator, shared by adload's population, the codec fuzzing inputs and the tests.
        .target(name: "SeededRandomness"),
        .target(
            name: "LaunchAdLoad",
            dependencies: [
                "Locking", "ZeroMQ", "CZeroMQ", "JSONRPC", "LaunchAdAPI", "LaunchAdDomain", "SeededRandomness", "ZMQRPC", "DurableFiles",
                .product(name: "Histogram", package: "hdrhistogram-swift"),
            ]
        ),

        // MARK: The operators' tool: every adctl command, one per file, kept out of the executable
        .target(
            name: "AdminCommands",
            dependencies: [
                "ZMQRPC", "JSONRPC", "ZeroMQ", "LaunchAdDomain", "LaunchAdAPI", "LaunchAdRuntime", "DurableFiles",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),

        // MARK: adsim's commands, over the client SDK (sdk/, Foundation only: check-package-graph.py keeps it so)
        .target(
            name: "AdSimCommands",
            dependencies: [.product(name: "LaunchAdKit", package: "sdk"), .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),

        // MARK: Executables
        .executableTarget(
            name: "campaignd",
            dependencies: [
                "CampaignService", "CampaignStore", "LaunchAdRuntime",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "deliveryd",
            dependencies: [
                "DeliveryService", "LaunchAdRuntime",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "relayd",
            dependencies: [
                "RelayService", "LaunchAdRuntime",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(name: "adctl", dependencies: ["AdminCommands"]),
        .executableTarget(name: "adsim", dependencies: ["AdSimCommands"]),
        .executableTarget(
            name: "adload",
            dependencies: [
                "LaunchAdAPI", "LaunchAdLoad", "LaunchAdRuntime", "ZeroMQ",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),

        // MARK: Benchmarks (outside `swift test`), beside the bench/ scripts. Not in a folder named Benchmarks: the
        // ordo-one benchmark plugin would take every executable there for one of its own benchmarks.
        .executableTarget(
            name: "rpc-bench-server",
            dependencies: ["ZMQRPC", "JSONRPC", "ZeroMQ"],
            path: "bench/RPCBenchServer"
        ),

        .executableTarget(
            name: "query-microbench",
            dependencies: ["CampaignFollowing", "DeliveryService", "LaunchAdAPI", "LaunchAdDomain", "LaunchAdLoad", "JSONRPC"],
            path: "bench/QueryMicrobench"
        ),

        // MARK: Fuzzing (the codec's invariants, shared by the libFuzzer target and the property tests)
        .target(name: "CodecFuzzing", dependencies: ["Locking", "JSONRPC", "LaunchAdAPI", "LaunchAdDomain", "SeededRandomness"]),
        // `fuzz/run.sh` builds it with libFuzzer; `swift build` builds its corpus replayer.
        .executableTarget(name: "codec-fuzz", dependencies: ["CodecFuzzing"], path: "fuzz/CodecFuzz"),

        // MARK: Test support and tests
        // Builds campaignd's and deliveryd's apps in process for tests (and starts them as child processes for the rest).
        .target(
            name: "LaunchAdTesting",
            dependencies: [
                "Locking", "CampaignService", "CampaignStore", "DeliveryService", "RelayService", "LaunchAdRuntime", "ZMQRPC", "ZeroMQ", "JSONRPC", "LaunchAdAPI",
                "LaunchAdDomain",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .testTarget(name: "LockingTests", dependencies: ["Locking"]),
        .testTarget(name: "CampaignStoreTests", dependencies: ["CampaignStore", "DurableFiles", "LaunchAdAPI", "LaunchAdDomain", "LaunchAdTesting",
                                                      .product(name: "Logging", package: "swift-log"),
                                                      .product(name: "PostgresNIO", package: "postgres-nio")]),
        .testTarget(name: "ZeroMQTests", dependencies: ["Locking", "CZeroMQ", "ZeroMQ", "LaunchAdTesting"]),
        .testTarget(name: "JSONRPCTests", dependencies: ["Locking", "JSONRPC", "LaunchAdTesting", "SeededRandomness"]),
        .testTarget(name: "ZMQRPCTests", dependencies: ["Locking", "ZMQRPC", "ZeroMQ", "JSONRPC", "LaunchAdTesting"]),
        .testTarget(name: "DomainTests", dependencies: ["LaunchAdDomain", "LaunchAdAPI", "JSONRPC", "SeededRandomness", "LaunchAdTesting"]),
        .testTarget(name: "CampaignServiceTests", dependencies: ["CampaignService", "CampaignStore", "LaunchAdRuntime", "LaunchAdDomain", "LaunchAdAPI", "LaunchAdTesting", "ZMQRPC", "ZeroMQ", "JSONRPC",
                                                                  .product(name: "Logging", package: "swift-log")]),
        // The followed state, its file and the sync session's queue, without a daemon around them.
        .testTarget(name: "CampaignFollowingTests", dependencies: ["CampaignFollowing", "CampaignStore", "DurableFiles", "JSONRPC", "LaunchAdAPI", "LaunchAdDomain", "LaunchAdTesting", "Locking", "ZMQRPC", "ZeroMQ",
                                                                   .product(name: "Logging", package: "swift-log")]),
        .testTarget(name: "DeliveryServiceTests", dependencies: ["CampaignFollowing", "CampaignStore", "DeliveryService", "DurableFiles", "SeededRandomness", "LaunchAdRuntime", "LaunchAdDomain", "LaunchAdAPI", "LaunchAdTesting", "ZMQRPC", "ZeroMQ", "JSONRPC", "Locking",
                                                                 .product(name: "Prometheus", package: "swift-prometheus")]),
        .testTarget(name: "LoadTests", dependencies: ["LaunchAdLoad", "LaunchAdAPI", "LaunchAdDomain", "JSONRPC", "ZeroMQ"]),
        .testTarget(
            name: "AdminCommandsTests",
            dependencies: ["AdminCommands", "LaunchAdDomain", "JSONRPC", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        // Real processes under faults: kill -9, lost updates, partitions, a new epoch, an unwritable cache; clock skew with
        // edges built in process on an offset clock.
        .testTarget(name: "FaultTests", dependencies: ["Locking", "CampaignFollowing", "CampaignStore", "DeliveryService", "DurableFiles", "LaunchAdDomain", "LaunchAdAPI", "LaunchAdTesting", "ZMQRPC", "JSONRPC", "SeededRandomness"]),
        // relayd: in process and as real processes between campaignd and deliveryd.
        .testTarget(name: "RelayTests", dependencies: ["CampaignFollowing", "DeliveryService", "RelayService", "LaunchAdTesting", "LaunchAdAPI", "LaunchAdDomain", "ZMQRPC", "JSONRPC",
                                                       "LaunchAdRuntime", "ZeroMQ", "Locking"]),
        .testTarget(name: "DaemonOptionsTests", dependencies: ["CampaignService", "DeliveryService", "RelayService", "LaunchAdRuntime", "LaunchAdTesting",
                                                           .product(name: "ArgumentParser", package: "swift-argument-parser")]),
        .testTarget(name: "ServicesTests", dependencies: ["LaunchAdRuntime", "LaunchAdTesting", "LaunchAdAPI", "LaunchAdDomain", "ZMQRPC", "JSONRPC", "ZeroMQ",
                                                     .product(name: "Logging", package: "swift-log")]),
        .testTarget(
            name: "DeployTests",
            dependencies: ["LaunchAdTesting", "LaunchAdAPI", "ZMQRPC", "ZeroMQ", "JSONRPC",
                           .product(name: "Yams", package: "Yams")]
        ),
        // LaunchAdKit against real edges (in process, and deliveryd, campaignd, adctl and adsim as child processes) and
        // LaunchAdTesting's faulty HTTP server.
        .testTarget(name: "LaunchAdKitTests", dependencies: [.product(name: "LaunchAdKit", package: "sdk"), .product(name: "LaunchAdKitTesting", package: "sdk"), "LaunchAdTesting", "LaunchAdAPI", "LaunchAdDomain", "JSONRPC", "ZMQRPC", "Locking"]),
        // campaignd's console over HTTP (in process, with an edge), and in a real browser (Chromium, through Selenium).
        .testTarget(name: "CampaignConsoleTests", dependencies: ["CampaignConsole", "CampaignService", "CampaignStore", "DurableFiles", "LaunchAdRuntime", "LaunchAdTesting", "LaunchAdAPI", "LaunchAdDomain", "JSONRPC", "ZMQRPC",
                                                               .product(name: "LaunchAdKit", package: "sdk")]),
        .testTarget(name: "HostileInputTests", dependencies: ["CodecFuzzing", "LaunchAdTesting", "LaunchAdRuntime", "LaunchAdAPI", "LaunchAdDomain", "DeliveryService",
                                                              "CampaignService", "CampaignStore", "JSONRPC", "ZMQRPC", "ZeroMQ", "SeededRandomness"]),
    ]
)
