// In-process cost of the launch query's parts, without ZeroMQ: the whole dispatch of a DESIGN launch query, and
// its pieces (parsing and reading params, deciding, writing the answer); a timestamp written; and what an edge's
// subscriber spends on a change of the update stream (`query-microbench 50000 change`). Prints nanoseconds per
// operation.
//
//   query-microbench [iterations [only the measures whose name contains this]]
//
// The scale measures run only when asked for (`query-microbench 200000 scale`): the decision over adload's population
// of 10,000 devices at 100, 1,000 and 10,000 campaigns of one app (``ScaleCampaigns``), and the time a change takes
// to apply at each size; with SHARE=S (0 to 1) also the decision at each size with a serve share of S on every
// campaign, as pacing sets it (`SHARE=0.5 query-microbench 200000 scale`).
import CampaignFollowing
import DeliveryService
import Foundation
import JSONRPC
import LaunchAdAPI
import LaunchAdDomain

let iterations = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 200_000
let now = Timestamp(seconds: Date().timeIntervalSince1970)
let shapes = [(1179, 2556), (1080, 1920), (1242, 2208)]
let facts = shapes.enumerated().map { index, shape in
    CreativeFacts(sha256: String(repeating: String(index), count: 64), contentType: "image/png", width: shape.0, height: shape.1, size: 20_000)
}
var campaigns: [Int64: Campaign] = [:]
for i in 0..<100 {
    let targeting: Targeting
    switch i % 4 {
    case 1: targeting = Targeting(platforms: ["ios"], appVersions: VersionRange(min: "5.0"))
    case 2: targeting = Targeting(platforms: ["android"])
    case 3: targeting = Targeting(regions: ["cn-east", "cn-north"], locales: ["zh-CN"])
    default: targeting = .everyone
    }
    let id = Int64(i + 1)
    campaigns[id] = Campaign(id: id, name: "bench \(i)", app: i % 10 == 0 ? "shop" : "app\(i % 10)", startsAt: now.adding(seconds: -60),
                             endsAt: now.adding(seconds: 86_400), priority: (i * 7) % 3 * 10 + 50, weight: (i * 13) % 200 + 1,
                             forced: false, countdown: 3, skippable: true, skipAfter: nil, launchTypes: [.cold], minBackgroundSeconds: nil,
                             jump: .none, creatives: facts.map { CreativeRef(sha256: $0.sha256) }, targeting: targeting,
                             frequencyCap: nil, state: .live, version: 1, createdAt: now, updatedAt: now)
}
let state = EdgeState(epoch: "bench", seq: 100, campaigns: campaigns, creatives: Dictionary(uniqueKeysWithValues: facts.map { ($0.sha256, $0) }))

func request(_ device: Int) -> [UInt8] {
    Array(#"{"jsonrpc":"2.0","id":\#(device),"method":"launch.query","params":{"app":"shop","platform":"ios","appVersion":"5.2.0","region":"cn-east","locale":"zh-CN","deviceId":"d-\#(device % 10_000)","screen":{"width":1179,"height":2556}}}"#.utf8)
}
let requests = (0..<1000).map(request)

let only = CommandLine.arguments.dropFirst(2).first
func measure(_ name: String, _ body: (Int) -> Void) {
    if let only, !name.contains(only) { return }
    for i in 0..<min(iterations / 10, 10_000) { body(i) }  // warm up
    let start = ContinuousClock.now
    for i in 0..<iterations { body(i) }
    let elapsed = ContinuousClock.now - start
    let nanoseconds = Double(elapsed.components.seconds) * 1e9 + Double(elapsed.components.attoseconds) / 1e9
    print("\(name.padding(toLength: 34, withPad: " ", startingAt: 0)) \(String(format: "%8.0f", nanoseconds / Double(iterations))) ns/op")
}

let base = CreativeBase("http://127.0.0.1:8200")
var full = MethodTable()
full.register(ClientAPI.launchQuery, reading: LaunchQueryParams.request(json:), checking: { try $0.validated() },
              compact: LaunchQueryParams.request(compact:), writing: { request, _, json in
    let decision = DecisionEngine.decide(request, index: state.appIndex(request.app), device: .unknown, now: now, serviceNow: now)
    LaunchAnswer.write(decision, state: state.answerState, creativeBase: base, into: &json)
})
let fullDispatcher = JSONRPCDispatcher(methods: full, info: OpenRPCInfo(title: "bench", version: "1"))
var readOnly = MethodTable()
readOnly.register(RPCMethod<LaunchQueryParams, Bool>("launch.query", summary: ""), inline: { params, _ in
    _ = try params.validated()
    return true
})
let readDispatcher = JSONRPCDispatcher(methods: readOnly, info: OpenRPCInfo(title: "bench", version: "1"))
/// Params that read nothing: what the dispatch costs around the params.
struct IgnoredParams: JSONReadable, Codable, Sendable {
    init(json: JSONReader) {}
    init(from decoder: any Decoder) {}
    func encode(to encoder: any Encoder) {}
}
var ignoring = MethodTable()
ignoring.register(RPCMethod<IgnoredParams, Bool>("launch.query", summary: ""), inline: { _, _ in true })
let ignoreDispatcher = JSONRPCDispatcher(methods: ignoring, info: OpenRPCInfo(title: "bench", version: "1"))
var unvalidated = MethodTable()
unvalidated.register(RPCMethod<LaunchQueryParams, Bool>("launch.query", summary: ""), inline: { _, _ in true })
let unvalidatedDispatcher = JSONRPCDispatcher(methods: unvalidated, info: OpenRPCInfo(title: "bench", version: "1"))
let scratch = JSONRPCDispatcher.Scratch()
var sink = 0

/// A message dispatched as the edge's socket thread dispatches one (with a context made for it): its reply's size.
/// A function of its own, not on the main actor: in a closure of the top-level code, each call checked that it ran
/// on the main actor's executor (some 220 instructions a query, which the edge does not spend).
func dispatched(_ message: [UInt8], by dispatcher: JSONRPCDispatcher, _ scratch: JSONRPCDispatcher.Scratch) -> Int {
    message.withUnsafeBytes { bytes in
        if case .reply(let writer) = dispatcher.dispatch(bytes, context: RPCContext(), scratch: scratch) { return writer.count }
        return 0
    }
}

for (name, dispatcher) in [("dispatch launch.query (all of it)", fullDispatcher), ("dispatch, params read and validated", readDispatcher),
                           ("dispatch, params read", unvalidatedDispatcher), ("dispatch, params ignored", ignoreDispatcher)] {
    measure(name) { i in sink &+= dispatched(requests[i % 1000], by: dispatcher, scratch) }
}
// The same queries from phones that list what they hold (`cached`: the creative of their shape and two others), as
// the SDK sends them: the answer's showMoment is then decided by a lookup in that list.
let cachedList = ([facts[0].sha256, String(repeating: "e", count: 64), String(repeating: "f", count: 64)]).map { "\"\($0)\"" }.joined(separator: ",")
let requestsWithCached = (0..<1000).map { device in
    Array(#"{"jsonrpc":"2.0","id":\#(device),"method":"launch.query","params":{"app":"shop","platform":"ios","appVersion":"5.2.0","region":"cn-east","locale":"zh-CN","deviceId":"d-\#(device % 10_000)","screen":{"width":1179,"height":2556},"cached":[\#(cachedList)]}}"#.utf8)
}
measure("dispatch launch.query, cached listed") { i in sink &+= dispatched(requestsWithCached[i % 1000], by: fullDispatcher, scratch) }
let validated = try LaunchQueryParams(app: "shop", platform: "ios", appVersion: "5.2.0", region: "cn-east", locale: "zh-CN",
                                      deviceId: "d-1", screen: .init(width: 1179, height: 2556)).validated()
// The requests of 10,000 devices, made before the measure so that it times the decision alone.
let devices = (0..<10_000).map { device in
    LaunchRequest(app: validated.app, platform: validated.platform, appVersion: validated.appVersion, region: validated.region,
                  locale: validated.locale, deviceId: "d-\(device)", screen: validated.screen, cached: validated.cached)
}
measure("decide") { i in
    let decision = DecisionEngine.decide(devices[i % 10_000], index: state.index["shop"], device: .unknown, now: now, serviceNow: now)
    sink &+= decision.campaign == nil ? 0 : 1
}
let decision = DecisionEngine.decide(validated, index: state.index["shop"], device: .unknown, now: now, serviceNow: now)
measure("answer built and written") { _ in
    var writer = JSONWriter(reservingCapacity: 512)
    LaunchAnswer(decision, epoch: state.epoch, seq: state.seq, creativeBaseURL: "http://127.0.0.1:8200").write(json: &writer)
    sink &+= writer.count
}
measure("answer written from the decision") { _ in
    var writer = JSONWriter(reservingCapacity: 512)
    LaunchAnswer.write(decision, state: state.answerState, creativeBase: base, into: &writer)
    sink &+= writer.count
}

measure("timestamp written (RFC 3339)") { i in
    sink &+= Timestamp(milliseconds: now.milliseconds + Int64(i) * 1_001).rfc3339.utf8.count
}

// A change as the update stream carries it (a campaign's next version in a JSON-RPC notification), and what an edge's
// subscriber does with it before the new state is installed: the notification's head read (that it is JSON-RPC 2.0,
// and its method), its params read, and the change applied to the 100 campaigns' state.
struct NotificationMethod: JSONReadable {
    let method: String
    init(json: JSONReader) throws { method = try json.object(fields: ["jsonrpc", "method"]).require("method").string() }
}
struct ChangeParams: JSONReadable {
    let changed: CampaignChanged
    init(json: JSONReader) throws { changed = try CampaignChanged(json: json.object(fields: ["params"]).require("params")) }
}
let lenient = JSONValueDecoder(rejectUnknownKeys: false)
let changeBodies: [[UInt8]] = (1...100).map { id in
    var campaign = campaigns[Int64(id)]!
    campaign.forced = true
    campaign.version += 1
    let changed = CampaignChanged(epoch: state.epoch, change: Change(seq: state.seq + 1, op: .updated, id: campaign.id, campaign: campaign, at: now))
    var writer = JSONWriter(reservingCapacity: 1024)
    writer.writeObject { object in
        object.field("jsonrpc", "2.0")
        object.field("method", UpdateStream.changed.method)
        object.field("params") { changed.write(json: &$0) }
    }
    return writer.bytes
}
print("(a change's notification: \(changeBodies[0].count) bytes)")
measure("change: head read") { i in
    sink &+= ((try? lenient.decode(NotificationMethod.self, fromJSON: changeBodies[i % 100]))?.method.utf8.count ?? 0)
}
measure("change: params read") { i in
    sink &+= Int((try? lenient.decode(ChangeParams.self, fromJSON: changeBodies[i % 100]))?.changed.seq ?? 0)
}
let readChanges = changeBodies.map { try! lenient.decode(ChangeParams.self, fromJSON: $0).changed.change(at: now) }
measure("change: applied (100 campaigns)") { i in
    sink &+= Int(state.applying([readChanges[i % 100]]).seq)
}

if let only, only.hasPrefix("scale") {
    let population = populationRequests(10_000)
    for count in [100, 1000, 10_000] {
        let scaled = scaleState(count, facts: facts, now: now)
        let index = scaled.appIndex("shop")
        measure("scale: decide, \(count) campaigns") { i in
            sink &+= DecisionEngine.decide(population[i % 10_000], index: index, device: .unknown, now: now, serviceNow: now).campaign == nil ? 0 : 1
        }
        // SHARE=S: the same campaigns each with the serve share S, so a share 1 - S of the devices pass over each.
        if let share = ProcessInfo.processInfo.environment["SHARE"].flatMap(Double.init), (0...1).contains(share) {
            let shared = scaleState(count, facts: facts, now: now, share: share).appIndex("shop")
            measure("scale: decide, \(count) at share \(share)") { i in
                sink &+= DecisionEngine.decide(population[i % 10_000], index: shared, device: .unknown, now: now, serviceNow: now).campaign == nil ? 0 : 1
            }
        }
        if only == "scale" || only.contains("change") {
            let times = changeApplyTimes(scaled, changes: 200, now: now).sorted()
            print(String(format: "scale: change applied, %5d campaigns  median %.3f ms, p90 %.3f ms, max %.3f ms (200 changes)", count,
                         times[100], times[180], times[199]))
        }
    }
}
print("(checksum \(sink))")
