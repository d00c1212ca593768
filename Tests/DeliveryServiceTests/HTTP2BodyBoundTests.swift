@testable import DeliveryService
import Foundation
import LaunchAdTesting
import Testing

/// The bound on request bodies being received over all connections (connections × body limit), which an HTTP/2
/// connection would pass on its own by sending a body on each of its streams.
@Suite("bodies being received over HTTP/2 streams", .timeLimit(.minutes(2)))
struct HTTP2BodyBoundTests {
    /// An HTTP/2 client in Python's standard library, frame by frame, so that two streams' bodies are under way at once:
    /// `python3 -c SCRIPT CAFILE PORT BODY_BYTES`. Stream 1 sends all of its body but the last byte, then stream 3 does the
    /// same, then stream 1 ends its body; then stream 5 sends a whole body of the same size. It prints, per stream, what was answered:
    /// its body's text, and `reset` when the stream was reset.
    static let client = #"""
    from json import dumps
    from socket import create_connection
    from ssl import create_default_context
    from struct import pack
    from sys import argv
    cafile, port, size = argv[1], int(argv[2]), int(argv[3])
    context = create_default_context(cafile=cafile)
    context.set_alpn_protocols(["h2"])
    s = context.wrap_socket(create_connection(("127.0.0.1", port)), server_hostname="localhost")
    assert s.selected_alpn_protocol() == "h2", s.selected_alpn_protocol()
    def frame(kind, flags, stream, payload=b""):
        return pack(">I", len(payload))[1:] + bytes([kind, flags]) + pack(">I", stream) + payload
    def field(name, value):  # a literal field, not indexed, its name new, no Huffman coding
        name, value = name.encode(), value.encode()
        return b"\x00" + bytes([len(name)]) + name + bytes([len(value)]) + value
    def headers(stream, length):
        block = b"".join(field(n, v) for n, v in [(":method", "POST"), (":scheme", "https"), (":path", "/rpc"),
                         (":authority", "localhost"), ("content-type", "application/json"), ("content-length", str(length))])
        return frame(1, 0x4, stream, block)
    def data(stream, payload, end):
        chunks = [payload[i:i + 16384] for i in range(0, len(payload), 16384)] or [b""]
        return b"".join(frame(0, 0x1 if end and i == len(chunks) - 1 else 0, stream, c) for i, c in enumerate(chunks))
    def body(id, size):
        call = dumps({"jsonrpc": "2.0", "id": id, "method": "edge.status"}).encode()
        return call + b" " * (size - len(call))
    answers, reset, buffer = {}, set(), b""
    def read_until(done):
        global buffer
        s.settimeout(5)
        while not done():
            while len(buffer) >= 9 and len(buffer) >= 9 + int.from_bytes(buffer[:3], "big"):
                length = int.from_bytes(buffer[:3], "big")
                kind, flags, stream = buffer[3], buffer[4], int.from_bytes(buffer[5:9], "big") & 0x7fffffff
                payload, buffer = buffer[9:9 + length], buffer[9 + length:]
                if kind == 4 and not flags & 0x1: s.sendall(frame(4, 0x1, 0))
                elif kind == 6 and not flags & 0x1: s.sendall(frame(6, 0x1, 0, payload))
                elif kind == 0: answers[stream] = answers.get(stream, b"") + payload
                elif kind == 3: reset.add(stream)
                if done(): return
            chunk = s.recv(65536)
            if not chunk: return
            buffer += chunk
    s.sendall(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + frame(4, 0, 0))
    one, three = body(1, size), body(3, size)
    s.sendall(headers(1, size) + data(1, one[:-1], False))
    s.sendall(headers(3, size) + data(3, three[:-1], False))
    # Stream 3 is answered (refused) while stream 1 still waits for its last byte.
    read_until(lambda: b"\n" in answers.get(3, b"") or 3 in reset)
    waiting = 1 not in answers
    s.sendall(data(1, one[-1:], True))
    read_until(lambda: answers.get(1, b"").endswith(b"}"))
    five = body(5, size)
    s.sendall(headers(5, size) + data(5, five, True))
    read_until(lambda: answers.get(5, b"").endswith(b"}"))
    print(dumps({"waiting": waiting, "answers": {str(k): v.decode() for k, v in answers.items()}, "reset": sorted(reset)}))
    """#

    @Test("two streams' bodies past the bound: the second is refused 503 at once, the first answered, and what was held is let go")
    func secondBodyRefused() async throws {
        try await DeliveryServiceTests.withCampaignd { fixture, _, _ in
            let certificates = fixture.directory.appendingPathComponent("tls")
            try FileManager.default.createDirectory(at: certificates, withIntermediateDirectories: true)
            let cert = certificates.appendingPathComponent("cert.pem").path, key = certificates.appendingPathComponent("key.pem").path
            let made = try await onThread { try makeTestCertificate(certificate: cert, key: key, commonName: "localhost", loopback: true) }
            #expect(made.termination.status == 0, "openssl: \(made.error)")
            // One connection of 16 KiB bodies: 16 KiB of bodies at once, which one HTTP/2 connection's two streams of 16,000
            // bytes pass (within HTTP/2's first flow-control window, 65,535 bytes, so no update is awaited). Stream 5's body,
            // as large, fits only once both earlier bodies are let go.
            try await withEdge("edge-h2-bodies", connectedTo: fixture, configure: {
                $0.tlsCertificate = cert
                $0.tlsKey = key
                $0.httpMaxBody = 16 << 10
                $0.httpMaxConnections = 1
            }) { edge in
                let port = try #require(edge.endpoints["http"]?.split(separator: ":").last.map(String.init))
                let run = try await onThread { try SpawnedProcess.run("python3", ["-c", Self.client, cert, port, "16000"]) }
                #expect(run.termination.status == 0, "\(run.output) \(run.error)")
                struct Seen: Decodable {
                    var waiting: Bool
                    var answers: [String: String]
                    var reset: [Int]
                }
                let seen = try JSONDecoder().decode(Seen.self, from: Data(run.output.utf8))
                #expect(seen.waiting, "stream 1 was answered before its body ended")
                #expect(seen.answers["3"]?.contains("bytes of request bodies are being received") == true, "\(seen)")
                #expect(seen.answers["1"]?.contains(#""edgeId":"edge-h2-bodies""#) == true, "\(seen)")
                #expect(seen.answers["5"]?.contains(#""edgeId":"edge-h2-bodies""#) == true, "\(seen)")
            }
        }
    }
}
