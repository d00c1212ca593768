// The RPC server with one trivial method, for measuring the JSON-RPC-over-ZeroMQ layer against the reference
// limit server: it parses each request, decodes its params into a typed value, and answers a small result.
//
//   rpc-bench-server [--endpoint tcp://127.0.0.1:0] [--seconds 60] [--async] [--codable] [--reply-padding BYTES]
//
// By default params and result use the JSONReadable/JSONWritable fast path that hot methods use; --codable
// uses the same types through plain Codable instead. --reply-padding makes each answer that many bytes longer (in
// its epoch), to see what the size of an answer costs: a real launch answer is about 540 bytes, this one about 210.
//
// It prints `READY endpoint=...` once bound and stops by itself after --seconds, or on SIGTERM/SIGINT.
import Foundation
import JSONRPC
import ZMQRPC
import ZeroMQ

struct Screen: Codable, Sendable {
    var width: Int
    var height: Int
}

struct LaunchParams: Codable, Sendable {
    var app: String
    var platform: String
    var appVersion: String
    var region: String?
    var locale: String?
    var deviceId: String?
    var screen: Screen?
}

struct LaunchAnswer: Codable, Sendable {
    var hasAd: Bool
    var id: Int
    var version: Int
    var imgUrl: String
    var countdown: Int
    var skippable: Bool
    var epoch: String
    var seq: Int
}

/// The same types, read and written without Codable's generic machinery.
struct FastLaunchParams: JSONReadable, Encodable, Sendable {
    var params: LaunchParams
    init(from decoder: any Decoder) throws { params = try LaunchParams(from: decoder) }
    func encode(to encoder: any Encoder) throws { try params.encode(to: encoder) }
    init(json: JSONReader) throws {
        let object = try json.object(fields: ["app", "platform", "appVersion", "region", "locale", "deviceId", "screen"])
        var screen: Screen?
        if let value = object.optional("screen") {
            let fields = try value.object(fields: ["width", "height"])
            screen = Screen(width: try fields.require("width").int(), height: try fields.require("height").int())
        }
        params = LaunchParams(app: try object.require("app").string(), platform: try object.require("platform").string(),
                              appVersion: try object.require("appVersion").string(), region: try object.optional("region")?.string(),
                              locale: try object.optional("locale")?.string(), deviceId: try object.optional("deviceId")?.string(),
                              screen: screen)
    }
}

struct FastLaunchAnswer: JSONWritable, Decodable, Sendable {
    var answer: LaunchAnswer
    init(answer: LaunchAnswer) { self.answer = answer }
    init(from decoder: any Decoder) throws { answer = try LaunchAnswer(from: decoder) }
    func encode(to encoder: any Encoder) throws { try answer.encode(to: encoder) }
    func write(json: inout JSONWriter) {
        json.writeObject { object in
            object.field("hasAd", answer.hasAd)
            object.field("id", answer.id)
            object.field("version", answer.version)
            object.field("imgUrl", answer.imgUrl)
            object.field("countdown", answer.countdown)
            object.field("skippable", answer.skippable)
            object.field("epoch", answer.epoch)
            object.field("seq", answer.seq)
        }
    }
}

let launchQuery = RPCMethod<LaunchParams, LaunchAnswer>("launch.query", summary: "A trivial stand-in for the launch query.")
let fastLaunchQuery = RPCMethod<FastLaunchParams, FastLaunchAnswer>("launch.query", summary: "A trivial stand-in for the launch query.")

var endpoint = "tcp://127.0.0.1:0"
var seconds = 60.0
var useAsync = false
var useCodable = false
var padding = 0
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
    switch argument {
    case "--endpoint": endpoint = arguments.next() ?? endpoint
    case "--seconds": seconds = Double(arguments.next() ?? "") ?? seconds
    case "--async": useAsync = true
    case "--codable": useCodable = true
    case "--reply-padding":
        guard let bytes = Int(arguments.next() ?? ""), (0...60_000).contains(bytes) else {
            FileHandle.standardError.write(Data("--reply-padding takes a number of bytes from 0 to 60000\n".utf8))
            exit(2)
        }
        padding = bytes
    default:
        FileHandle.standardError.write(Data("usage: rpc-bench-server [--endpoint E] [--seconds S] [--async] [--codable] [--reply-padding BYTES]\n".utf8))
        exit(2)
    }
}
let epoch = "bench" + String(repeating: "x", count: padding)

let answer: @Sendable (LaunchParams) -> LaunchAnswer = { params in
    LaunchAnswer(hasAd: true, id: 1, version: 3,
                 imgUrl: "http://127.0.0.1:8200/creatives/9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
                 countdown: 3, skippable: params.platform != "tv", epoch: epoch, seq: 1)
}
var table = MethodTable()
switch (useAsync, useCodable) {
case (false, false): table.register(fastLaunchQuery, inline: { params, _ in FastLaunchAnswer(answer: answer(params.params)) })
case (true, false): table.register(fastLaunchQuery, handler: { params, _ in FastLaunchAnswer(answer: answer(params.params)) })
case (false, true): table.register(launchQuery, inline: { params, _ in answer(params) })
case (true, true): table.register(launchQuery, handler: { params, _ in answer(params) })
}
let dispatcher = JSONRPCDispatcher(methods: table, info: OpenRPCInfo(title: "rpc-bench-server", version: "1"))
let context = try ZMQContext()
var configuration = RPCServerConfiguration(endpoint: endpoint, name: "bench")
configuration.highWaterMark = 100_000
let server = try RPCServer(context: context, dispatcher: dispatcher, configuration: configuration)
let bound = try server.start()
FileHandle.standardOutput.write(Data("READY endpoint=\(bound)\n".utf8))

signal(SIGTERM, SIG_IGN)
signal(SIGINT, SIG_IGN)
let stop = DispatchSemaphore(value: 0)
let sources = [SIGTERM, SIGINT].map { signalNumber in
    let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
    source.setEventHandler { stop.signal() }
    source.resume()
    return source
}
_ = stop.wait(timeout: .now() + seconds)
let done = DispatchSemaphore(value: 0)
Task.detached {
    await server.shutdown()
    done.signal()
}
done.wait()
print("SERVER_EXIT received=\(server.stats.received.load(ordering: .relaxed)) replied=\(server.stats.replied.load(ordering: .relaxed))")
withExtendedLifetime(sources) {}
