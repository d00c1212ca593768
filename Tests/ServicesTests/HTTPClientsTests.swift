import Foundation
import JSONRPC
import LaunchAdAPI
import LaunchAdTesting
import Testing
import ZMQRPC

/// Runs a program to its end: its exit status and what it wrote to standard output and error.
func runTool(_ executable: String, _ arguments: [String]) throws -> (status: Int32, output: String, error: String) {
    let finished = try SpawnedProcess.run(executable, arguments)
    return (finished.termination.status, finished.output, finished.error)
}

@Suite("Real HTTP clients against deliveryd: curl (HTTP/1.1, HTTP/2 over TLS), Python's http.client", .timeLimit(.minutes(3)))
struct HTTPClientsTests {
    static let query = #"{"jsonrpc":"2.0","id":1,"method":"launch.query","params":{"app":"shop","platform":"ios","appVersion":"5.2.0","deviceId":"d-1"}}"#

    /// campaignd with one live campaign, and a certificate for 127.0.0.1 and localhost made with the openssl CLI.
    static func withCampaign(_ body: (CampaignFixture, URL) async throws -> Void) async throws {
        try await withStopping(CampaignFixture()) { fixture in
            let admin = try fixture.admin()
            let sha = try await fixture.uploadPNG(admin)
            _ = try await admin.call(AdminAPI.campaignCreate, CampaignFixture.fields(creative: sha))
            await admin.close()
            let certificates = fixture.directory.appendingPathComponent("tls")
            try FileManager.default.createDirectory(at: certificates, withIntermediateDirectories: true)
            let made = try makeTestCertificate(certificate: certificates.appendingPathComponent("cert.pem").path,
                                               key: certificates.appendingPathComponent("key.pem").path, commonName: "localhost", loopback: true)
            #expect(made.termination.status == 0, "openssl: \(made.error)")
            try await body(fixture, certificates)
        }
    }

    static func waitForAd(_ edge: EdgeProcess) async -> Bool {
        await eventually(timeout: .seconds(15)) { (try? await edge.query().hasAd) == true }
    }

    @Test("curl over HTTP/1.1: POST /rpc, GET /launch-ad, a 415, and one connection reused for several requests")
    func curlClearText() async throws {
        try await Self.withCampaign { fixture, _ in
            try await withStopping(fixture.startEdge("edge-curl")) { edge in
                #expect(await Self.waitForAd(edge))
                let base = "http://\(edge.endpoints["http"]!)"
                let answer = try runTool("curl", ["-sS", "--http1.1", "-H", "Content-Type: application/json", "--data-binary", Self.query,
                                                  "-w", "\\n%{http_code} %{http_version}", "\(base)/rpc"])
                #expect(answer.output.hasSuffix("200 1.1") && answer.output.contains(#""hasAd":true"#), "\(answer)")
                #expect(answer.output.contains(#""imgUrl":"http://"#))
                // showMoment a number on both bindings (1: not held, not forced), the campaign's moments in launchTypes.
                #expect(answer.output.contains(#""showMoment":1,"launchTypes":["cold"],"#), "\(answer)")
                let launch = try runTool("curl", ["-sS", "-w", "\\n%{http_code}", "\(base)/launch-ad?app=shop&platform=ios&appVersion=5.2.0&deviceId=d-1"])
                #expect(launch.output.hasPrefix(#"{"code":200,"msg":"SUCCESS","data":{"hasAd":true"#) && launch.output.hasSuffix("200"), "\(launch)")
                #expect(launch.output.contains(#""showMoment":1,"launchTypes":["cold"],"#), "\(launch)")
                let wrongType = try runTool("curl", ["-sS", "-o", "/dev/null", "-w", "%{http_code}", "-H", "Content-Type: text/plain",
                                                     "--data-binary", Self.query, "\(base)/rpc"])
                #expect(wrongType.output == "415")
                // Three requests in one curl: the connection is reused.
                let reused = try runTool("curl", ["-sS", "-v", "-o", "/dev/null", "-o", "/dev/null", "-o", "/dev/null", "-H", "Content-Type: application/json",
                                                  "--data-binary", Self.query, "\(base)/rpc", "\(base)/rpc", "\(base)/rpc"])
                #expect(reused.error.components(separatedBy: "Re-using existing connection").count == 3, "\(reused.error)")
            }
        }
    }

    @Test("TLS: curl with HTTP/2 through ALPN and with HTTP/1.1, imgUrl in https, Python's http.client keeping its connection")
    func tls() async throws {
        try await Self.withCampaign { fixture, certificates in
            let cert = certificates.appendingPathComponent("cert.pem").path, key = certificates.appendingPathComponent("key.pem").path
            try await withStopping(fixture.startEdge("edge-tls", arguments: ["--tls-cert", cert, "--tls-key", key])) { edge in
                #expect(await Self.waitForAd(edge))
                let base = "https://\(edge.endpoints["http"]!)"
                for version in ["--http2", "--http1.1"] {
                    let answer = try runTool("curl", ["-sS", version, "--cacert", cert, "-H", "Content-Type: application/json",
                                                      "--data-binary", Self.query, "-w", "\\n%{http_code} %{http_version}", "\(base)/rpc"])
                    let expected = version == "--http2" ? "200 2" : "200 1.1"
                    #expect(answer.output.hasSuffix(expected) && answer.output.contains(#""imgUrl":"https://"#), "\(version): \(answer)")
                }
                let launch = try runTool("curl", ["-sS", "--http2", "--cacert", cert, "-w", "\\n%{http_code} %{http_version}",
                                                  "\(base)/launch-ad?app=shop&platform=ios&appVersion=5.2.0&deviceId=d-1"])
                #expect(launch.output.contains(#""showMoment":1"#) && launch.output.hasSuffix("200 2"), "\(launch)")
                let notAllowed = try runTool("curl", ["-sS", "--http2", "--cacert", cert, "-o", "/dev/null", "-w", "%{http_code}", "\(base)/rpc"])
                #expect(notAllowed.output == "405")
                let metrics = try runTool("curl", ["-sS", "--http2", "--cacert", cert, "\(base)/metrics"])
                #expect(metrics.output.contains(#"launchad_deliveryd_http_requests_total{route="rpc",method="POST",status="200",protocol="2"}"#))

                // Python's http.client, over TLS: five calls on one connection (the same socket throughout).
                let port = edge.endpoints["http"]!.split(separator: ":").last!
                let script = """
                    from http.client import HTTPSConnection
                    from json import loads
                    from ssl import create_default_context
                    from sys import argv
                    context = create_default_context(cafile=argv[1])
                    connection = HTTPSConnection("localhost", int(argv[2]), context=context)
                    sockets = set()
                    for i in range(5):
                        connection.request("POST", "/rpc", body=argv[3], headers={"Content-Type": "application/json"})
                        response = connection.getresponse()
                        answer = loads(response.read())
                        sockets.add(id(connection.sock))
                        assert response.status == 200 and answer["result"]["hasAd"], (response.status, answer)
                    print("ok", len(sockets))
                    """
                let python = try runTool("python3", ["-c", script, cert, String(port), Self.query])
                #expect(python.output.trimmingCharacters(in: .whitespacesAndNewlines) == "ok 1", "\(python)")
            }
        }
    }

    @Test("TLS with a header timeout of 1 s: a connection that never finishes its handshake is closed after it; an HTTP/2 connection outlives it between streams")
    func tlsHeaderTimeout() async throws {
        try await Self.withCampaign { fixture, certificates in
            let cert = certificates.appendingPathComponent("cert.pem").path, key = certificates.appendingPathComponent("key.pem").path
            try await withStopping(fixture.startEdge("edge-tls-timeout", arguments: ["--tls-cert", cert, "--tls-key", key, "--http-header-timeout", "1"])) { edge in
                let address = try #require(edge.endpoints["http"])
                // No handshake at all: the header timeout counts from the connection's start.
                let (early, closed) = try await onThread {
                    let silent = try HTTPTestConnection(address)
                    return (silent.closes(within: .milliseconds(800)), silent.closes(within: .milliseconds(1_700)))
                }
                #expect(!early && closed)
                // Two streams 2 s apart on one HTTP/2 connection (curl's --rate: one transfer started per 2 s): one connect.
                let url = "https://\(address)/launch-ad?app=shop&platform=ios&appVersion=5.2.0&deviceId=d-1"
                let streams = try await onThread {
                    try runTool("curl", ["-sS", "--http2", "--cacert", cert, "--rate", "30/m", "-w", "%{http_code} %{http_version} %{num_connects}\\n",
                                         "-o", "/dev/null", url, "-o", "/dev/null", url])
                }
                #expect(streams.output == "200 2 1\n200 2 0\n", "\(streams)")
            }
        }
    }

    @Test("a missing certificate, a missing key and a key of another certificate: deliveryd exits naming the file")
    func badTLSFiles() async throws {
        let directory = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        func made(_ name: String) throws -> (cert: String, key: String) {
            let cert = directory.appendingPathComponent("\(name)-cert.pem").path, key = directory.appendingPathComponent("\(name)-key.pem").path
            let result = try makeTestCertificate(certificate: cert, key: key, commonName: name, loopback: false)
            #expect(result.termination.status == 0)
            return (cert, key)
        }
        let one = try made("one"), two = try made("two")
        let cases: [([String], String)] = [
            (["--tls-cert", directory.appendingPathComponent("absent.pem").path, "--tls-key", one.key], "absent.pem"),
            (["--tls-cert", one.cert, "--tls-key", directory.appendingPathComponent("nokey.pem").path], "nokey.pem"),
            (["--tls-cert", one.cert, "--tls-key", two.key], "two-key.pem"),
            (["--tls-cert", one.key, "--tls-key", one.key], "one-key.pem"),
        ]
        for (arguments, named) in cases {
            let edge = try ChildProcess("deliveryd", ["--cache-dir", directory.appendingPathComponent("cache").path, "--client-endpoint",
                                                      "tcp://127.0.0.1:0", "--http-address", "127.0.0.1:0"] + arguments, directory: directory)
            let status = await edge.exitStatus(timeout: .seconds(20))
            #expect(status != nil && status != 0, "\(arguments)")
            #expect(edge.log.contains(named), "\(arguments): \(edge.log)")
        }
    }
}
