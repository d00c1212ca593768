import Foundation
import LaunchAdTesting
import Testing
@testable import ZeroMQ

@Suite("ZeroMQ connection monitor", .timeLimit(.minutes(1)))
struct ConnectionMonitorTests {
    @Test("counts a ROUTER's connections until they close, and their peers: one process over IPC however many connections it holds, another process apart")
    func ipcPeers() async throws {
        let context = try ZMQContext()
        let folder = try makeTemporaryDirectory("monitor")
        defer { removeTemporaryDirectory(folder) }
        let path = folder.appendingPathComponent("router.sock").path
        let monitor = ConnectionMonitor(name: "sync")
        let router = try Socket(context, type: .router)
        try monitor.watch(router, context: context)
        try router.bind("ipc://\(path)")
        #expect(monitor.connections == 0 && monitor.peers == 0)

        var dealers: [Socket] = []
        for _ in 0..<3 {
            let dealer = try Socket(context, type: .dealer)
            try dealer.connect("ipc://\(path)")
            dealers.append(dealer)
        }
        #expect(await eventually { monitor.connections == 3 }, "\(monitor.connections) connections")
        #expect(monitor.peers == 1)

        // Another process holding a connection of its own is a second peer; gone, it is no longer counted.
        let other = try ChildProcess(executable: URL(fileURLWithPath: "/usr/bin/env"), [
            "python3", "-c", "import socket, time; s = socket.socket(socket.AF_UNIX); s.connect('\(path)'); time.sleep(60)",
        ], directory: folder)
        #expect(await eventually { monitor.connections == 4 && monitor.peers == 2 },
                "\(monitor.connections) connections, \(monitor.peers) peers; \(other.log)")
        other.signal(SIGKILL)
        _ = await other.exitStatus()
        #expect(await eventually { monitor.connections == 3 && monitor.peers == 1 }, "\(monitor.connections) connections")

        for dealer in dealers { dealer.close() }
        #expect(await eventually { monitor.connections == 0 && monitor.peers == 0 }, "\(monitor.connections) connections")
        router.close()
    }

    @Test("counts a PUB's subscribers over TCP, one host for all of them on loopback")
    func tcpPeers() async throws {
        let context = try ZMQContext()
        let monitor = ConnectionMonitor(name: "updates")
        let publisher = try Socket(context, type: .pub)
        try monitor.watch(publisher, context: context)
        let endpoint = try publisher.bind("tcp://127.0.0.1:0")
        let subscribers = try (0..<2).map { _ in
            let subscriber = try Socket(context, type: .sub)
            try subscriber.connect(endpoint)
            return subscriber
        }
        #expect(await eventually { monitor.connections == 2 }, "\(monitor.connections) connections")
        #expect(monitor.peers == 1)
        #expect(ConnectionMonitor.peer(of: -1) == "fd -1")
        subscribers[0].close()
        #expect(await eventually { monitor.connections == 1 }, "\(monitor.connections) connections")
        publisher.close()
        subscribers[1].close()
    }
}
