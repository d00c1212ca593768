import JSONRPC
import LaunchAdAPI
import LaunchAdDomain
import Locking

/// One invariant of the codec that an input broke.
public struct InvariantViolation: Error, Sendable, CustomStringConvertible {
    /// Which invariant (a short stable name).
    public let invariant: String
    /// What was seen.
    public let detail: String

    public init(_ invariant: String, _ detail: String) {
        self.invariant = invariant
        self.detail = detail
    }

    public var description: String { "\(invariant): \(detail)" }
}

/// The invariants of the JSON-RPC codec and of the params decoding of every public method, checked on any bytes.
///
/// Shared by the libFuzzer target (`fuzz/CodecFuzz`) and the property tests, so both check the same things:
/// - what the strict parser accepts writes back to a canonical text that parses to the same value, and that text
///   is a fixed point;
/// - no typed decoding accepts bytes that the strict parser refuses;
/// - decoding a params type from the bytes and from the parsed value agree, and what decodes re-encodes to JSON
///   that decodes to the same value again;
/// - the fast `JSONReadable` paths of `launch.query`, `launch.prefetch` and `launch.report` (and its events), and of
///   the update stream's notifications (a change, with its campaign and every part of one, and a heartbeat) accept
///   and refuse exactly what their `Codable` conformances do, naming the same field, with strict decoding and (the
///   update stream's) lenient decoding alike;
/// - the edge's one-pass reader of `launch.query` gives what decoding and then validating the params give: the
///   same request, or the same error;
/// - a compact `launch.query`, `launch.prefetch` or `launch.report` call, read straight from its bytes, is answered
///   exactly as the general way (parsing, then the tape readers) answers it, whether the bytes are a whole message
///   or the params of one;
/// - the domain's validation of decoded params (launch requests, campaign fields) never traps;
/// - the dispatcher answers every input with well-formed JSON-RPC 2.0 responses (or nothing, only for
///   notifications), echoes the request's id, and answers a known method with a result exactly when its params
///   decode.
public enum CodecInvariants {
    /// Checks every invariant on one input; the violations found (none when all hold).
    public static func check(_ bytes: [UInt8]) -> [InvariantViolation] {
        var violations: [InvariantViolation] = []
        let parsed: JSONValue?
        do {
            parsed = try JSONParser.parse(bytes)
        } catch {
            parsed = nil
        }
        if let parsed {
            checkRoundTrip(parsed, &violations)
        }
        for type in ParamsTypes.all {
            type.check(bytes, parsed, &violations)
        }
        checkFastPath(bytes, parsed: parsed, &violations)
        checkOnePass(bytes, parsed: parsed, &violations)
        checkCompactCalls(bytes, &violations)
        EchoDispatcher.check(bytes, parsed: parsed, &violations)
        return violations
    }

    // MARK: Parser and writer

    static func checkRoundTrip(_ value: JSONValue, _ violations: inout [InvariantViolation]) {
        let text = value.jsonBytes
        let again: JSONValue
        do {
            again = try JSONParser.parse(text)
        } catch {
            violations.append(.init("canonical text parses", "\(error) in \(String(decoding: text, as: UTF8.self).prefix(200))"))
            return
        }
        if again != value {
            violations.append(.init("canonical text parses to the same value", String(decoding: text, as: UTF8.self).prefix(200).description))
        }
        if again.hashValue != value.hashValue {
            violations.append(.init("equal values hash the same", String(decoding: text, as: UTF8.self).prefix(200).description))
        }
        let textAgain = again.jsonBytes
        if textAgain != text {
            violations.append(.init("canonical text is a fixed point",
                                    "\(String(decoding: text, as: UTF8.self).prefix(120)) became \(String(decoding: textAgain, as: UTF8.self).prefix(120))"))
        }
    }

    // MARK: The launch query's fast path

    /// A params type through its synthesized `Decodable` conformance only (the decoder would otherwise pick the
    /// `JSONReadable` fast path). Members of a `JSONReadable` type inside it still read themselves (a screen, an
    /// event), so each such type is checked on its own as well.
    struct ViaCodable<Params: Decodable>: Decodable {
        let value: Params
        init(from decoder: any Decoder) throws { value = try Params(from: decoder) }
    }

    static func checkFastPath(_ bytes: [UInt8], parsed: JSONValue?, _ violations: inout [InvariantViolation]) {
        guard parsed != nil else { return }
        if let params = checkFastPath(LaunchQueryParams.self, "launch.query", bytes, &violations) {
            checkLaunchValidation(params, &violations)
        }
        _ = checkFastPath(LaunchPrefetchParams.self, "launch.prefetch", bytes, &violations)
        _ = checkFastPath(LaunchWhyParams.self, "launch.why", bytes, &violations)
        _ = checkFastPath(LaunchReportParams.self, "launch.report", bytes, &violations)
        _ = checkFastPath(LaunchEvent.self, "launch.report's event", bytes, &violations)
        _ = checkFastPath(LaunchQueryParams.Screen.self, "a screen", bytes, &violations)
        for strict in [true, false] {
            _ = checkFastPath(CampaignChanged.self, "campaign.changed", bytes, &violations, strict: strict)
            _ = checkFastPath(Heartbeat.self, "heartbeat", bytes, &violations, strict: strict)
            _ = checkFastPath(Campaign.self, "a campaign", bytes, &violations, strict: strict)
            _ = checkFastPath(Targeting.self, "a campaign's targeting", bytes, &violations, strict: strict)
            _ = checkFastPath(VersionRange.self, "a campaign's app versions", bytes, &violations, strict: strict)
            _ = checkFastPath(Jump.self, "a campaign's jump", bytes, &violations, strict: strict)
            _ = checkFastPath(CreativeRef.self, "a campaign's creative", bytes, &violations, strict: strict)
            _ = checkFastPath(FrequencyCap.self, "a campaign's frequency cap", bytes, &violations, strict: strict)
            _ = checkFastPath(EdgeAck.self, "edge.ack", bytes, &violations, strict: strict)
            _ = checkFastPath(EdgeAcks.self, "edge.acks", bytes, &violations, strict: strict)
        }
    }

    /// Reads `bytes` as `Params` both ways, strictly or not (members not known refused or passed over); the value
    /// when both accept it alike.
    static func checkFastPath<Params: JSONReadable & Encodable>(_ type: Params.Type, _ name: String, _ bytes: [UInt8],
                                                                _ violations: inout [InvariantViolation], strict: Bool = true) -> Params? {
        let decoder = JSONValueDecoder(rejectUnknownKeys: strict)
        let name = strict ? name : name + " (lenient)"
        let fast = Result<Params, any Error>(catching: { try decoder.decode(Params.self, fromJSON: bytes) })
        let codable = Result<Params, any Error>(catching: { try decoder.decode(ViaCodable<Params>.self, fromJSON: bytes).value })
        switch (fast, codable) {
        case (.success(let fastValue), .success(let codableValue)):
            let left = try? JSONValueEncoder().encode(fastValue)
            let right = try? JSONValueEncoder().encode(codableValue)
            if left == nil || left != right {
                violations.append(.init("\(name) fast path reads the same values as Codable",
                                        "\(left?.jsonText ?? "unencodable") vs \(right?.jsonText ?? "unencodable")"))
                return nil
            }
            return fastValue
        case (.failure(let fastError), .failure(let codableError)):
            let left = (fastError as? DecodingError)?.fieldPath
            let right = (codableError as? DecodingError)?.fieldPath
            if left != right {
                violations.append(.init("\(name) fast path names the field Codable names",
                                        "fast: \(fastError), Codable: \(codableError)"))
            }
        case (.success, .failure(let error)):
            violations.append(.init("\(name) fast path refuses what Codable refuses", "Codable: \(error)"))
        case (.failure(let error), .success):
            violations.append(.init("\(name) fast path accepts what Codable accepts", "fast: \(error)"))
        }
        return nil
    }

    /// `LaunchQueryParams.request(json:)`, the edge's reader, as a decodable type.
    struct LaunchRequestInOnePass: Decodable, JSONReadable {
        let request: LaunchRequest
        init(from decoder: any Decoder) throws { fatalError("the one-pass reader must be used") }
        init(json: JSONReader) throws { request = try LaunchQueryParams.request(json: json) }
    }

    /// The error a params decoding or check answers, as the dispatcher words it.
    static func wire(_ error: any Error) -> JSONRPCError? {
        if let decoding = error as? DecodingError { return .invalidParams(field: decoding.fieldPath, decoding.reason) }
        return (error as? JSONRPCErrorConvertible)?.jsonRPCError
    }

    static func checkOnePass(_ bytes: [UInt8], parsed: JSONValue?, _ violations: inout [InvariantViolation]) {
        guard parsed != nil else { return }
        let decoder = JSONValueDecoder()
        let onePass = Result<LaunchRequest, any Error>(catching: { try decoder.decode(LaunchRequestInOnePass.self, fromJSON: bytes).request })
        // Decoded as the server decodes params (through `JSONReadable`), then validated. (The same reader as the one
        // pass: `checkFastPath` is the comparison with the synthesized `Codable`, whose refusals are worded otherwise.)
        let twoSteps = Result<LaunchRequest, any Error>(catching: { try decoder.decode(LaunchQueryParams.self, fromJSON: bytes).validated() })
        switch (onePass, twoSteps) {
        case (.success(let left), .success(let right)):
            // Every member, by reflection: a member added to the request is compared without a word here.
            let same = members(of: left) == members(of: right)
            if !same {
                violations.append(.init("launch.query one-pass reader gives the request decoding and validating give", "\(left) vs \(right)"))
            }
        case (.failure(let left), .failure(let right)):
            let leftWire = wire(left), rightWire = wire(right)
            if leftWire == nil || leftWire != rightWire {
                violations.append(.init("launch.query one-pass reader refuses as decoding and validating do",
                                        "one pass: \(left), two steps: \(right)"))
            }
        case (.success, .failure(let error)):
            violations.append(.init("launch.query one-pass reader refuses what decoding and validating refuse", "two steps: \(error)"))
        case (.failure(let error), .success):
            violations.append(.init("launch.query one-pass reader accepts what decoding and validating accept", "one pass: \(error)"))
        }
    }

    // MARK: Compact calls

    /// Counts, for the task that sets it, what the compact dispatcher of ``compactDispatchers`` did: params read
    /// compactly, params read the general way, and handler runs.
    public final class CompactProbe: Sendable {
        let counts = Locked<(compact: Int, general: Int, runs: Int)>((0, 0, 0))
        public init() {}
        /// Whether a call went the compact way: read compactly, never the general way, and handled. (Params read
        /// compactly but followed by something else go the general way, which may refuse the call before reading them.)
        public var tookCompactWay: Bool { counts.withLock { $0 == (1, 0, 1) } }
    }
    @TaskLocal public static var compactProbe: CompactProbe?

    /// The methods with compact readers on the edge: each call's params are checked as those of every one.
    public static let compactMethods = ["launch.query", "launch.prefetch", "launch.report"]

    /// `launch.query`, `launch.prefetch` and `launch.report` with the edge's readers and handlers that write back
    /// what they were given; one dispatcher takes compact calls without the parser, the other takes every call the
    /// general way.
    static let compactDispatchers = makeCompactDispatchers()

    /// The two dispatchers of ``compactDispatchers``, with `limits`.
    static func makeCompactDispatchers(limits: JSONRPCDispatcher.Limits = .init()) -> (compact: JSONRPCDispatcher, general: JSONRPCDispatcher) {
        let write: @Sendable (LaunchRequest, RPCContext, inout JSONWriter) -> Void = { request, context, json in
            json.write(describe(request, id: context.id))
        }
        var probed = MethodTable(), plain = MethodTable()
        probed.register(ClientAPI.launchQuery, reading: { json in
            CodecInvariants.compactProbe?.counts.withLock { $0.general += 1 }
            return try LaunchQueryParams.request(json: json)
        }, checking: { try $0.validated() }, compact: { reader in
            let request = LaunchQueryParams.request(compact: &reader)
            if request != nil { CodecInvariants.compactProbe?.counts.withLock { $0.compact += 1 } }
            return request
        }, writing: { request, context, json in
            CodecInvariants.compactProbe?.counts.withLock { $0.runs += 1 }
            write(request, context, &json)
        })
        plain.register(ClientAPI.launchQuery, reading: LaunchQueryParams.request(json:), checking: { try $0.validated() }, writing: write)
        register(ClientAPI.launchPrefetch, reading: LaunchPrefetchParams.init(json:), compact: LaunchPrefetchParams.init(compact:),
                 probed: &probed, plain: &plain)
        register(ClientAPI.launchReport, reading: LaunchReportParams.init(json:), compact: LaunchReportParams.init(compact:),
                 probed: &probed, plain: &plain)
        let info = OpenRPCInfo(title: "compact", version: "1")
        return (JSONRPCDispatcher(methods: probed, info: info, limits: limits),
                JSONRPCDispatcher(methods: plain, info: info, limits: limits, compactCalls: false))
    }

    /// A method whose params read themselves, in both tables: with the probes and its compact reader, and without
    /// them. Its handler writes back the params it was given (their `Codable` encoding) and the call's id.
    private static func register<Params: Codable & Sendable, Result>(
        _ method: RPCMethod<Params, Result>, reading: @escaping @Sendable (JSONReader) throws -> Params,
        compact: @escaping @Sendable (inout CompactReader) -> Params?, probed: inout MethodTable, plain: inout MethodTable
    ) {
        let write: @Sendable (Params, RPCContext, inout JSONWriter) throws -> Void = { params, context, json in
            var object = JSONObject()
            object["params"] = try JSONValueEncoder().encode(params)
            object["id"] = context.id?.json ?? .string("none")
            json.write(JSONValue.object(object))
        }
        probed.register(method, reading: { json in
            CodecInvariants.compactProbe?.counts.withLock { $0.general += 1 }
            return try reading(json)
        }, checking: { $0 }, compact: { reader in
            let params = compact(&reader)
            if params != nil { CodecInvariants.compactProbe?.counts.withLock { $0.compact += 1 } }
            return params
        }, writing: { params, context, json in
            CodecInvariants.compactProbe?.counts.withLock { $0.runs += 1 }
            try write(params, context, &json)
        })
        plain.register(method, reading: reading, checking: { $0 }, writing: write)
    }

    /// Everything the handler is given, as JSON.
    static func describe(_ request: LaunchRequest, id: JSONRPCID?) -> JSONValue {
        var object = JSONObject()
        // By name: two dictionaries with the same members need not list them in the same order.
        for (name, value) in members(of: request).sorted(by: { $0.key < $1.key }) { object[name] = .string(value) }
        object["id"] = id?.json ?? .string("none")
        return .object(object)
    }

    /// Each member of a request by its name, described: found by reflection, so that a member added to the request
    /// is described and compared with the others (a version by its numbers as written, so that 5.2 is not 5.2.0; a
    /// set sorted).
    static func members(of request: LaunchRequest) -> [String: String] {
        var members: [String: String] = [:]
        for child in Mirror(reflecting: request).children {
            guard let name = child.label else { continue }
            switch child.value {
            case let version as AppVersion: members[name] = "\(version.parts)"
            case let set as Set<String>: members[name] = "\(set.sorted())"
            default: members[name] = String(describing: child.value)
            }
        }
        return members
    }

    /// What a dispatcher sends back for a message handled with `scratch`, a fresh one unless given (`nil` for nothing).
    static func answer(_ dispatcher: JSONRPCDispatcher, _ message: [UInt8], scratch: JSONRPCDispatcher.Scratch = .init()) -> [UInt8]? {
        switch message.withUnsafeBytes({ dispatcher.dispatch($0, context: RPCContext(), scratch: scratch) }) {
        case .reply(let writer): writer.bytes
        case .noReply: nil
        case .deferred: Array("deferred".utf8)
        }
    }

    /// One scratch for every message this process checks, as a server's loop keeps one for all of its messages: what
    /// a message leaves in it (the strings compact readers kept, the response's buffer) must change no later answer.
    static let sharedScratch = Locked(JSONRPCDispatcher.Scratch())

    /// What a dispatcher sends back for a message handled with ``sharedScratch`` (`nil` for nothing).
    static func answerSharingScratch(_ dispatcher: JSONRPCDispatcher, _ message: [UInt8]) -> [UInt8]? {
        sharedScratch.withLock { answer(dispatcher, message, scratch: $0) }
    }

    /// The bytes as the params of a compact call of `method`.
    static func compactCall(params: [UInt8], method: String = "launch.query") -> [UInt8] {
        Array(#"{"jsonrpc":"2.0","id":7,"method":""#.utf8) + Array(method.utf8) + Array(#"","params":"#.utf8) + params + [UInt8(ascii: "}")]
    }

    /// The bytes as a message, and as the params of a compact call of each of `methods`: every one is answered by the
    /// compact dispatcher as the general one answers it, with a scratch of its own and with the one every message shares.
    static func checkCompactCalls(_ bytes: [UInt8], methods: [String] = compactMethods, _ violations: inout [InvariantViolation]) {
        let (compact, general) = compactDispatchers
        func text(_ answer: [UInt8]?) -> String { answer.map { String(decoding: $0, as: UTF8.self) } ?? "nothing" }
        for message in [bytes] + methods.map({ compactCall(params: bytes, method: $0) }) {
            let right = answer(general, message)
            let left = answer(compact, message)
            // Not counted by a test's probe, which follows one dispatch of the call.
            let shared = $compactProbe.withValue(nil) { answerSharingScratch(compact, message) }
            if left != right {
                violations.append(.init("a compact call is answered as the general way answers it", "\(text(left)) vs \(text(right))"))
            }
            if shared != right {
                violations.append(.init("a compact call is answered as the general way answers it, with the scratch of every message",
                                        "\(text(shared)) vs \(text(right))"))
            }
        }
    }

    static func checkLaunchValidation(_ params: LaunchQueryParams, _ violations: inout [InvariantViolation]) {
        do {
            let request = try params.validated()
            if request.app.isEmpty || !CampaignRules.platforms.contains(request.platform) {
                violations.append(.init("a validated launch request names an app and a known platform", "\(request.app) \(request.platform)"))
            }
        } catch {
            if error.code != JSONRPCError.invalidParamsCode {
                violations.append(.init("launch.query validation refuses with -32602", "\(error)"))
            }
        }
    }

    // MARK: Campaign fields through the domain's rules

    static let now = Timestamp(milliseconds: 1_800_000_000_000)

    static func checkCampaignRules(_ fields: CampaignFields, _ violations: inout [InvariantViolation]) {
        guard let campaign = try? CampaignRules.create(fields, id: 1, now: now, creativeExists: { _ in true }) else { return }
        do {
            try CampaignRules.validate(campaign, creativeExists: { _ in true })
        } catch {
            violations.append(.init("a created campaign validates", "\(error)"))
        }
        do {
            let text = try JSONValueEncoder().encodeJSON(campaign)
            let back = try JSONValueDecoder().decode(Campaign.self, fromJSON: text)
            if back != campaign { violations.append(.init("a created campaign round-trips through JSON", String(decoding: text, as: UTF8.self))) }
        } catch {
            violations.append(.init("a created campaign round-trips through JSON", "\(error)"))
        }
        _ = try? CampaignRules.update(campaign, with: fields, now: now, creativeExists: { _ in true })
        _ = CampaignRules.nextTransition(of: campaign)
    }
}
