import Foundation
import JSONRPC
import LaunchAdAPI
import LaunchAdRuntime
import LaunchAdTesting
import Testing
import ZeroMQ

@Suite("Security boundaries", .timeLimit(.minutes(3)))
struct SecurityTests {
    /// The method names a socket serves, from its `rpc.discover`.
    static func methodNames(_ peer: TestPeer) async throws -> Set<String> {
        let document = try #require(try await peer.request(#"{"jsonrpc":"2.0","id":1,"method":"rpc.discover"}"#)?["result"])
        return Set(try #require(document["methods"]?.arrayValue).compactMap { $0["name"]?.stringValue })
    }

    @Test("no admin or sync method is reachable on deliveryd's client socket: each is -32601, alone, in a batch or as a notification")
    func adminMethodsUnreachable() async throws {
        try await withCampaignService { fixture in
            try await withEdge("edge-sec", connectedTo: fixture) { edge in
                let admin = try TestPeer(fixture.context, type: .dealer, endpoint: try #require(fixture.endpoints["admin"]))
                let sync = try TestPeer(fixture.context, type: .dealer, endpoint: try #require(fixture.endpoints["sync"]))
                let client = try TestPeer(fixture.context, type: .dealer, endpoint: try #require(edge.endpoints["client"]))
                let clientMethods = try await Self.methodNames(client)
                let privileged = try await Self.methodNames(admin).union(try await Self.methodNames(sync)).subtracting(clientMethods)
                // The client socket shares only creative.get (its own, over the edge's creatives) and rpc.discover.
                #expect(clientMethods == ["launch.query", "launch.prefetch", "launch.report", "launch.why", "creative.get", "edge.status"])
                #expect(privileged.isSuperset(of: ["campaign.create", "campaign.expire", "campaign.delete", "creative.upload", "edge.list",
                                                   "sync.snapshot", "sync.changes", "edge.ack", "edge.report"]))
                #expect(privileged.count >= 17)
                for name in privileged.sorted() {
                    // Params shaped as the real method wants, so only the name can be what refuses them.
                    let reply = try await client.request(#"{"jsonrpc":"2.0","id":"\#(name)","method":"\#(name)","params":{"id":1}}"#)
                    #expect(reply?["error"]?["code"]?.intValue == -32601, "\(name): \(reply?.jsonText ?? "no reply")")
                    #expect(reply?["id"] == .string(name))
                    #expect(reply?["result"] == nil)
                }
                let batch = "[" + privileged.sorted().map { #"{"jsonrpc":"2.0","id":"\#($0)","method":"\#($0)"}"# }.joined(separator: ",") + "]"
                let answers = try #require(try await client.request(batch)?.arrayValue)
                #expect(answers.count == privileged.count)
                #expect(answers.allSatisfy { $0["error"]?["code"]?.intValue == -32601 })
                // A notification of a privileged method does nothing either (the empty frame a delimited notification gets
                // back is all), and the campaign list stays empty.
                try client.send([[], Array(#"{"jsonrpc":"2.0","method":"campaign.create","params":{"name":"x"}}"#.utf8)])
                #expect(try await client.receive(timeout: .milliseconds(300)) == [[], []])
                let listed = try await admin.request(#"{"jsonrpc":"2.0","id":2,"method":"campaign.list"}"#)
                #expect(listed?["result"]?["campaigns"] == [])
            }
        }
    }

    @Test("an unlisted CURVE key, a key of the other role and a plain client get nothing on admin, sync and updates")
    func curveAllowlists() async throws {
        let directory = try makeTemporaryDirectory("curve")
        defer { removeTemporaryDirectory(directory) }
        let keys = directory.appendingPathComponent("campaignd")
        let server = try KeysDirectory.generate(name: "campaignd", in: keys.path)
        let operatorKey = try KeysDirectory.generate(name: "operator", in: keys.appendingPathComponent("admin").path)
        let edgeKey = try KeysDirectory.generate(name: "edge", in: keys.appendingPathComponent("edges").path)
        let stranger = try CurveKeyPair.generate()
        try await withCampaignService(configure: { $0.keysDirectory = keys.path }) { fixture in
            let context = fixture.context
            func peer(_ socket: String, _ key: CurveKeyPair?, type: SocketType = .dealer) throws -> TestPeer {
                // A send never blocks this (shared) thread for long, even while a refused handshake leaves the socket
                // with no peer to queue for.
                try TestPeer(context, type: type, endpoint: try #require(fixture.endpoints[socket]),
                             curve: key.map { (serverKey: server.publicKey, keyPair: $0) }) { try $0.setSendTimeout(milliseconds: 50) }
            }
            let discover = #"{"jsonrpc":"2.0","id":1,"method":"rpc.discover"}"#

            // Controls: the listed keys are answered, each on its own socket.
            #expect(try await peer("admin", operatorKey).request(discover)?["result"] != nil)
            #expect(try await peer("sync", edgeKey).request(discover)?["result"] != nil)
            let listedSubscriber = try peer("updates", edgeKey, type: .sub)
            try listedSubscriber.socket.subscribe("")

            // Everyone else: nothing at all, not even an error.
            let refused: [(String, String, CurveKeyPair?)] = [
                ("admin", "a stranger", stranger), ("admin", "an edge", edgeKey), ("admin", "a plain client", nil),
                ("sync", "a stranger", stranger), ("sync", "an operator", operatorKey), ("sync", "a plain client", nil),
            ]
            for (socket, who, key) in refused {
                // Nothing comes back, whether the request was queued or could not even be (EAGAIN).
                let reply = try? await peer(socket, key).request(discover, timeout: .milliseconds(700))
                #expect(reply ?? nil == nil, "\(who) was answered on \(socket)")
            }
            // campaignd's authenticator logs each key it turns away: count the refusals on the edges' domain so far.
            func refusals(_ key: CurveKeyPair) -> Int {
                fixture.log.split(separator: "\n").filter {
                    $0.contains("refused a client") && $0.contains("domain=edges") && $0.contains("key=\(key.publicKey)")
                }.count
            }
            let (strangerBefore, operatorBefore) = (refusals(stranger), refusals(operatorKey))
            let strangerSubscriber = try peer("updates", stranger, type: .sub)
            try strangerSubscriber.socket.subscribe("")
            let operatorSubscriber = try peer("updates", operatorKey, type: .sub)
            try operatorSubscriber.socket.subscribe("")
            let plainSubscriber = try peer("updates", nil, type: .sub)
            try plainSubscriber.socket.subscribe("")
            // Heartbeats come every second: the listed edge hears them, the others never do.
            let heard = try await listedSubscriber.receive(timeout: .seconds(5))
            #expect(heard?.first.map { String(decoding: $0, as: UTF8.self) } == "heartbeat")
            // The two keys are turned away on the update stream, and a heartbeat published after that reaches the
            // listed edge: the others, refused or plain, had it to hear too.
            #expect(await eventually(timeout: .seconds(10)) {
                refusals(stranger) > strangerBefore && refusals(operatorKey) > operatorBefore
            }, "\(fixture.log)")
            while try listedSubscriber.socket.receiveParts(dontWait: true) != nil {}
            let later = try await listedSubscriber.receive(timeout: .seconds(5))
            #expect(later?.first.map { String(decoding: $0, as: UTF8.self) } == "heartbeat")
            #expect(try strangerSubscriber.socket.receiveParts(dontWait: true) == nil)
            #expect(try operatorSubscriber.socket.receiveParts(dontWait: true) == nil)
            #expect(try plainSubscriber.socket.receiveParts(dontWait: true) == nil)
        }
    }

    /// Names that must never reach a file: traversal, encodings, absolute paths, wrong length, case or alphabet.
    static func hostileNames(stored sha: String) -> [String] {
        [
            "../../../../../../etc/passwd", "..%2f..%2f..%2fetc%2fpasswd", "%2e%2e%2f%2e%2e%2fetc%2fpasswd", "/etc/passwd",
            "creatives/\(sha.prefix(2))/\(sha)", "\(sha.prefix(2))/\(sha)", "./\(sha)", "\(sha)/..", "\(sha)\u{0}",
            sha.uppercased(), String(sha.dropLast()), sha + "0", String(sha.dropLast()) + "g", "", " \(sha)",
            String(repeating: ".", count: 64), String(repeating: "/", count: 64), "..\\..\\..\\etc\\passwd",
        ]
    }

    @Test("creative.get on deliveryd and on campaignd's sync socket reaches stored creatives only")
    func creativeGetStaysInside() async throws {
        try await withCampaignService { fixture in
            let admin = try fixture.admin()
            let sha = try await fixture.uploadPNG(admin)
            let created = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(creative: sha))
            try await withEdge("edge-files", connectedTo: fixture) { edge in
                #expect(await edge.waitFor(seq: created.seq, creatives: 1))
                // Well-formed names of files that exist but are not stored creatives: a symlink to a system file planted in
                // each creatives folder, and a file a stored creative's sibling.
                let planted = String(repeating: "ab", count: 32)
                for folder in [fixture.directory.appendingPathComponent("data/creatives"), fixture.directory.appendingPathComponent("edge-files/creatives")] {
                    let shard = folder.appendingPathComponent("ab")
                    try FileManager.default.createDirectory(at: shard, withIntermediateDirectories: true)
                    try FileManager.default.createSymbolicLink(atPath: shard.appendingPathComponent(planted).path, withDestinationPath: "/etc/passwd")
                }
                let sockets = [("deliveryd client", try #require(edge.endpoints["client"])), ("campaignd sync", try #require(fixture.endpoints["sync"]))]
                for (name, endpoint) in sockets {
                    let peer = try TestPeer(fixture.context, type: .dealer, endpoint: endpoint)
                    let good = try await peer.request(#"{"jsonrpc":"2.0","id":1,"method":"creative.get","params":{"sha256":"\#(sha)"}}"#)
                    #expect(good?["result"]?["size"]?.intValue == CampaignFixture.png(width: 1080, height: 1920).count, "\(name)")
                    for hostile in Self.hostileNames(stored: sha) {
                        let params = JSONValue.object(["sha256": .string(hostile)])
                        let request: JSONValue = ["jsonrpc": "2.0", "id": 2, "method": "creative.get", "params": params]
                        let reply = try await peer.request(request.jsonText)
                        #expect(reply?["result"] == nil, "\(name) answered \(hostile.debugDescription)")
                        #expect(reply?["error"]?["code"]?.intValue == -32602, "\(name), \(hostile.debugDescription): \(reply?.jsonText ?? "no reply")")
                        #expect(reply?["error"]?["data"]?["field"] == "sha256")
                    }
                    let symlinked = try await peer.request(#"{"jsonrpc":"2.0","id":3,"method":"creative.get","params":{"sha256":"\#(planted)"}}"#)
                    #expect(symlinked?["result"] == nil && symlinked?["error"]?["code"]?.intValue == -32004, "\(name): \(symlinked?.jsonText ?? "no reply")")
                    // Offsets and lengths cannot reach past the creative either.
                    for (offset, length) in [(-1, 10), (0, 0), (0, -5), (Int.max, 1), (0, 1 << 21)] {
                        let reply = try await peer.request(#"{"jsonrpc":"2.0","id":4,"method":"creative.get","params":{"sha256":"\#(sha)","offset":\#(offset),"length":\#(length)}}"#)
                        #expect(reply?["result"] == nil && reply?["error"]?["code"]?.intValue == -32602, "\(name) offset \(offset) length \(length): \(reply?.jsonText ?? "no reply")")
                    }
                }
                // HTTP, with the request line sent exactly as written (no client normalizes the path).
                let http = try #require(edge.endpoints["http"])
                let (okStatus, okBody) = try await Self.httpGet(http, "/creatives/\(sha)")
                #expect(okStatus == 200 && okBody == CampaignFixture.png(width: 1080, height: 1920))
                let passwd = [UInt8]((try? Data(contentsOf: URL(fileURLWithPath: "/etc/passwd"))) ?? Data("root:".utf8))
                let paths = Self.hostileNames(stored: sha).filter { !$0.isEmpty && !$0.contains("\u{0}") && !$0.contains(" ") }
                    .map { "/creatives/\($0)" } + ["/creatives/\(planted)", "/creatives/../../etc/passwd", "/creatives/%2e%2e/%2e%2e/etc/passwd",
                                                   "/creatives/..%252f..%252fetc%252fpasswd", "/../../../etc/passwd", "//etc/passwd",
                                                   "/creatives/\(sha)%00", "/creatives/\(sha)?../../etc/passwd"]
                for path in paths {
                    let (status, body) = try await Self.httpGet(http, path)
                    let leaked = !body.isEmpty && (body == passwd || body.starts(with: Array("root:".utf8)))
                    #expect(!leaked, "\(path) leaked a system file")
                    if path.hasPrefix("/creatives/\(sha)?") {
                        #expect(status == 200 && body == CampaignFixture.png(width: 1080, height: 1920), "\(path): \(status)")
                    } else {
                        #expect(status == 404 || status == 400, "\(path): \(status)")
                        #expect(body.isEmpty || !body.starts(with: [0x89, 0x50, 0x4E, 0x47]), "\(path) answered creative bytes")
                    }
                }
            }
        }
    }

    /// One HTTP/1.1 GET over a plain TCP connection; the status and the body.
    static func httpGet(_ address: String, _ path: String) async throws -> (Int, [UInt8]) {
        try await onThread {
            let parts = address.split(separator: ":")
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            precondition(fd >= 0)
            defer { close(fd) }
            var addr = sockaddr_in()
            addr.sin_family = sa_family_t(AF_INET)
            addr.sin_port = in_port_t(UInt16(parts[1])!).bigEndian
            inet_pton(AF_INET, String(parts[0]), &addr.sin_addr)
            var timeout = timeval(tv_sec: 5, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            let connected = withUnsafePointer(to: &addr) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard connected == 0 else { throw POSIXError(.ECONNREFUSED) }
            let request = Array("GET \(path) HTTP/1.1\r\nHost: \(address)\r\nConnection: close\r\n\r\n".utf8)
            _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
            var response: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if count <= 0 { break }
                response += buffer[0..<count]
            }
            guard let split = response.firstRange(of: Array("\r\n\r\n".utf8)) else { return (0, []) }
            let head = String(decoding: response[..<split.lowerBound], as: UTF8.self)
            let status = head.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
            return (status, Array(response[split.upperBound...]))
        }
    }
}
