import Foundation
import JSONRPC
import LaunchAdAPI
import LaunchAdDomain
import LaunchAdKit
import LaunchAdTesting
import Locking

/// An edge played by ``FaultHTTPServer`` for the faults a real deliveryd does not make: its `/rpc` answers
/// `launch.query` with the servers' own `LaunchAnswer` for the creative the test chose (forced or not, with the
/// campaigns it revokes, late if told, or as JSON the test wrote), keeps the events `launch.report` brings, and
/// `/creatives/{sha256}` serves that creative's bytes as the test says (whole, cut short, corrupt, or never).
final class ScriptedEdge: Sendable {
    enum CreativeFault: Sendable {
        case none
        /// Only the first `bytes` of the body, then the connection closes.
        case truncate(bytes: Int)
        /// The whole length, one byte changed.
        case corrupt
        /// Accept and never answer.
        case hang
    }

    struct Creative: Sendable {
        let campaignId: Int64
        let bytes: [UInt8]
        var sha256: String { SHA256Digest.hex(bytes) }
    }

    private struct State {
        var answering: Creative?
        /// Faults for the next creative requests, in order; then the bytes whole.
        var faults: [CreativeFault] = []
        var hangRPC = false
        /// Seconds every `/rpc` call waits before its answer.
        var delay: Double = 0
        var forced = false
        var revoked: [Int64] = []
        /// The answer's JSON, written by the test from the request's host, in place of `LaunchAnswer`'s.
        var raw: (@Sendable (_ host: String) -> String)?
        /// The events `launch.report` brought, each once (by event id).
        var events: [JSONValue] = []
    }

    /// The script, shared with the server's handler.
    private final class Script: Sendable {
        let state = Locked(State())
    }

    private let script: Script
    let server: FaultHTTPServer

    init() throws {
        let script = Script()
        self.script = script
        server = try FaultHTTPServer { request in Self.reply(request, script) }
    }

    deinit { server.stop() }

    var url: URL { URL(string: server.baseURL)! }

    /// The creative `launch.query` answers from now on (nil: no ad).
    func answer(_ creative: Creative?) { script.state.withLock { $0.answering = creative } }

    /// Faults for the next creative requests.
    func fail(_ faults: CreativeFault...) { script.state.withLock { $0.faults = faults } }

    /// Every call to `/rpc` hangs from now on.
    func hangRPC() { script.state.withLock { $0.hangRPC = true } }

    /// Every call to `/rpc` is answered `seconds` late from now on (0: at once).
    func answerLate(by seconds: Double) { script.state.withLock { $0.delay = seconds } }

    /// The answered campaign is forced (or not), and these campaigns are revoked, from now on.
    func script(forced: Bool = false, revoked: [Int64] = []) { script.state.withLock { ($0.forced, $0.revoked) = (forced, revoked) } }

    /// `launch.query` answers this JSON from now on (the request's host given, for the creative's URL).
    func answerJSON(_ raw: @escaping @Sendable (_ host: String) -> String) { script.state.withLock { $0.raw = raw } }

    /// The events `launch.report` brought so far, each once.
    var reported: [JSONValue] { script.state.withLock { $0.events } }

    /// The creative requests so far.
    var creativeRequests: [FaultHTTPServer.Request] { server.requests.filter { $0.path.hasPrefix("/creatives/") } }

    static func creative(_ campaignId: Int64, size: Int = 20_000, seed: UInt8 = 0) -> Creative {
        Creative(campaignId: campaignId, bytes: (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed) &* 7 &+ $0 >> 8) })
    }

    private static func reply(_ request: FaultHTTPServer.Request, _ script: Script) -> FaultHTTPServer.Reply {
        if request.path == "/rpc" { return rpc(request, script) }
        let (answering, fault) = script.state.withLock { state -> (Creative?, CreativeFault) in
            (state.answering, state.faults.isEmpty ? .none : state.faults.removeFirst())
        }
        guard let creative = answering, request.path == "/creatives/\(creative.sha256)" else {
            return .respond(status: 404, headers: [], body: [])
        }
        let etag = "\"\(creative.sha256)\""
        switch fault {
        case .none:
            return FaultHTTPServer.ranged(creative.bytes, etag: etag, request: request)
        case .truncate(let bytes):
            return .truncate(status: 200, headers: [("ETag", etag), ("Accept-Ranges", "bytes")], body: creative.bytes, sent: bytes)
        case .corrupt:
            var bytes = creative.bytes
            bytes[bytes.count / 2] ^= 0xff
            return .respond(status: 200, headers: [("ETag", etag)], body: bytes)
        case .hang:
            return .hang
        }
    }

    private static func rpc(_ request: FaultHTTPServer.Request, _ script: Script) -> FaultHTTPServer.Reply {
        let state = script.state.withLock { $0 }
        if state.hangRPC { return .hang }
        // Each connection has a thread of its own: a late answer holds no other.
        if state.delay > 0 { Thread.sleep(forTimeInterval: state.delay) }
        let call = try? JSONParser.parse(request.body)
        let host = request.headers["host"] ?? ""
        guard let call, let id = call["id"] else { return notScripted }
        if call["method"]?.stringValue == "launch.report", case .array(let events)? = call["params"]?["events"] {
            let accepted = script.state.withLock { state in
                let known = Set(state.events.compactMap { $0["eventId"]?.stringValue })
                let new = events.filter { !known.contains($0["eventId"]?.stringValue ?? "") }
                state.events += new
                return new.count
            }
            return result(id, #"{"accepted":\#(accepted),"duplicates":\#(events.count - accepted)}"#)
        }
        guard call["method"]?.stringValue == "launch.query" else { return notScripted }
        if let raw = state.raw { return result(id, raw(host)) }
        let answering = state.answering
        var answer: LaunchAnswer
        if let creative = answering {
            answer = LaunchAnswer(
                hasAd: true, id: creative.campaignId, version: 1, showMoment: 1, launchTypes: [.cold], imgUrl: "http://\(request.headers["host"] ?? "")/creatives/\(creative.sha256)",
                creative: CreativeFacts(sha256: creative.sha256, contentType: "image/png", width: 1179, height: 2556, size: creative.bytes.count),
                jumpType: "none", countdown: 3, skippable: true, skipAfter: 1, forced: false,
                expiresAt: Timestamp(seconds: Date().timeIntervalSince1970 + 3600), epoch: "scripted", seq: 1, revoked: [])
        } else {
            answer = LaunchAnswer(hasAd: false, epoch: "scripted", seq: 1, revoked: [])
        }
        if answering != nil { answer.forced = state.forced }
        answer.revoked = state.revoked
        var writer = JSONWriter(reservingCapacity: 1024)
        answer.write(json: &writer)
        return result(id, String(decoding: writer.bytes, as: UTF8.self))
    }

    private static func result(_ id: JSONValue, _ json: String) -> FaultHTTPServer.Reply {
        var writer = JSONWriter(reservingCapacity: 1024)
        writer.writeRaw("{\"jsonrpc\":\"2.0\",\"id\":")
        writer.write(id)
        writer.writeRaw(",\"result\":")
        writer.writeRaw(json)
        writer.writeRaw("}")
        return .respond(status: 200, headers: [("Content-Type", "application/json")], body: writer.bytes)
    }

    private static let notScripted = FaultHTTPServer.Reply.respond(
        status: 200, headers: [("Content-Type", "application/json")],
        body: Array(#"{"jsonrpc":"2.0","id":null,"error":{"code":-32601,"message":"not scripted"}}"#.utf8))
}
