import Foundation
import JSONRPC
import LaunchAdAPI
import LaunchAdDomain
import LaunchAdTesting
import Testing
import ZMQRPC
import ZeroMQ

/// One socket's API: its document in proto-docs/openrpc, what the code declares, and the typed codec of each method.
struct SocketAPI: Sendable {
    let document: String
    let info: OpenRPCInfo
    let methods: [MethodInfo]
    let codecs: [String: TypedCodec]

    static let all = [
        SocketAPI(document: "campaignd-admin", info: AdminAPI.info, methods: AdminAPI.methods, codecs: TypedCodec.table(
            [TypedCodec(AdminAPI.creativeUpload), TypedCodec(AdminAPI.campaignCreate), TypedCodec(AdminAPI.campaignUpdate),
             TypedCodec(AdminAPI.campaignGet), TypedCodec(AdminAPI.campaignList), TypedCodec(AdminAPI.edgeList),
             TypedCodec(AdminAPI.campaignStats), TypedCodec(AdminAPI.appStats), TypedCodec(AdminAPI.appSet),
             TypedCodec(AdminAPI.appGet), TypedCodec(AdminAPI.appList), TypedCodec(AdminAPI.reportList), TypedCodec(AdminAPI.changeList),
             TypedCodec(AdminAPI.launchExplain), TypedCodec(AdminAPI.backupCreate), TypedCodec(AdminAPI.backupRead)] + AdminAPI.operations.map { TypedCodec($0.0) })),
        SocketAPI(document: "campaignd-sync", info: SyncAPI.info, methods: SyncAPI.methods, codecs: TypedCodec.table(
            [TypedCodec(SyncAPI.snapshot), TypedCodec(SyncAPI.changes), TypedCodec(SyncAPI.creative), TypedCodec(SyncAPI.ack), TypedCodec(SyncAPI.acks),
             TypedCodec(SyncAPI.report)])),
        SocketAPI(document: "deliveryd-client", info: ClientAPI.info, methods: ClientAPI.methods, codecs: TypedCodec.table(
            [TypedCodec(ClientAPI.launchQuery), TypedCodec(ClientAPI.launchReport), TypedCodec(ClientAPI.launchPrefetch), TypedCodec(ClientAPI.launchWhy),
             TypedCodec(ClientAPI.creativeGet), TypedCodec(ClientAPI.edgeStatus)])),
    ]
}

/// A method's params and result taken through the codec the services use, and back to JSON.
struct TypedCodec: Sendable {
    let name: String
    let params: @Sendable (JSONValue) throws -> JSONValue
    let result: @Sendable (JSONValue) throws -> JSONValue

    init<Params, Result>(_ method: RPCMethod<Params, Result>) {
        name = method.name
        // As a server reads params (strictly, fast path included) and as a client writes them.
        params = { json in try JSONValueEncoder().encode(try method.decodeParams(fromJSON: json.jsonBytes)) }
        // As a strict reader reads a result and as a server writes it.
        result = { json in
            try JSONParser.parse(try method.encodeResult(try JSONValueDecoder(rejectUnknownKeys: true).decode(Result.self, from: json)))
        }
    }

    static func table(_ codecs: [TypedCodec]) -> [String: TypedCodec] {
        Dictionary(uniqueKeysWithValues: codecs.map { ($0.name, $0) })
    }
}

/// One golden case: a call's params and its result or error.
struct GoldenCase {
    let method: String
    let name: String
    let params: JSONValue
    let result: JSONValue?
    let error: JSONValue?
    /// What state the case needs, when a fresh service cannot answer it.
    let needs: String?
}

@Suite("proto-docs match the code", .timeLimit(.minutes(2)))
struct ProtoDocsTests {
    /// The repository's root, from this file's place in it.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func document(_ name: String) throws -> JSONValue {
        try JSONParser.parse([UInt8](try Data(contentsOf: root.appendingPathComponent("proto-docs/openrpc/\(name).json"))))
    }

    static func methods(_ document: JSONValue) -> [JSONValue] { document["methods"]?.arrayValue ?? [] }

    static func names(_ document: JSONValue) -> [String] { methods(document).compactMap { $0["name"]?.stringValue } }

    /// The golden files of a document, by method name.
    static func golden(_ name: String) throws -> [String: [GoldenCase]] {
        let folder = root.appendingPathComponent("proto-docs/examples/\(name)")
        var cases: [String: [GoldenCase]] = [:]
        for file in try FileManager.default.contentsOfDirectory(atPath: folder.path) where file.hasSuffix(".json") {
            let json = try JSONParser.parse([UInt8](try Data(contentsOf: folder.appendingPathComponent(file))))
            let method = try #require(json["method"]?.stringValue, "\(file) names no method")
            #expect(file == "\(method).json", "\(name)/\(file) holds \(method)")
            cases[method] = try (json["cases"]?.arrayValue ?? []).map { entry in
                GoldenCase(method: method, name: try #require(entry["name"]?.stringValue), params: try #require(entry["params"]),
                           result: entry["result"], error: entry["error"], needs: entry["needs"]?.stringValue)
            }
        }
        return cases
    }

    /// The schema of each param of `method` in `document`, and its result's.
    static func schemas(_ method: JSONValue) -> (params: JSONValue, result: JSONValue) {
        var properties = JSONObject()
        var required: [JSONValue] = []
        for param in method["params"]?.arrayValue ?? [] {
            guard let name = param["name"]?.stringValue else { continue }
            properties[name] = param["schema"] ?? true
            if param["required"] == true { required.append(.string(name)) }
        }
        let params: JSONValue = ["type": "object", "properties": .object(properties), "required": .array(required), "additionalProperties": false]
        return (params, method["result"]?["schema"] ?? true)
    }

    @Test("each document is what the typed method descriptors generate, and lists every method the code declares")
    func generated() throws {
        for api in SocketAPI.all {
            let documented = try Self.document(api.document)
            #expect(Self.names(documented) == api.methods.map(\.name).sorted(), "\(api.document): methods in code and in proto-docs differ")
            #expect(Set(api.codecs.keys) == Set(api.methods.map(\.name)), "\(api.document): the test's codec table lacks a method")
            let generated = OpenRPC.document(info: api.info, methods: api.methods) == documented
            #expect(generated, "\(api.document): run proto-docs/generate.sh")
            for method in Self.methods(documented) {
                let name = method["name"]?.stringValue ?? "?"
                #expect(method["examples"]?.arrayValue?.isEmpty == false, "\(name) has no example")
                for param in method["params"]?.arrayValue ?? [] {
                    #expect(param["schema"]?["type"] != nil || param["schema"]?["$ref"] != nil, "\(name).\(param["name"]?.stringValue ?? "?") has no real schema")
                }
                #expect(method["result"]?["schema"]?.objectValue?.isEmpty == false, "\(name) has no result schema")
            }
        }
    }

    @Test("the markets' rules in proto-docs/README.md are the table the code checks (MarketRules.all)")
    func marketRules() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("proto-docs/README.md"), encoding: .utf8)
        #expect(readme.contains("<!-- market-rules -->\n\(MarketRules.markdownTable)\n<!-- /market-rules -->"), "run proto-docs/generate.sh")
    }

    @Test("each document is valid OpenRPC 1.3, its examples valid against their methods' schemas")
    func valid() throws {
        for api in SocketAPI.all {
            let errors = OpenRPCValidator.errors(try Self.document(api.document))
            #expect(errors.isEmpty, "\(api.document): \(errors.joined(separator: "\n"))")
        }
    }

    @Test("the validators refuse broken documents and values")
    func validatorsRefuse() throws {
        let good = try Self.document("deliveryd-client")
        func broken(_ change: (inout JSONObject) -> Void) -> [String] {
            var object = good.objectValue!
            change(&object)
            return OpenRPCValidator.errors(.object(object))
        }
        func method(_ object: inout JSONObject, _ index: Int, _ change: (inout JSONObject) -> Void) {
            var methods = object["methods"]!.arrayValue!
            var method = methods[index].objectValue!
            change(&method)
            methods[index] = .object(method)
            object["methods"] = .array(methods)
        }
        let queryIndex = Self.methods(good).firstIndex { $0["name"] == "launch.query" }!
        #expect(broken { $0["info"] = ["version": "1"] }.contains { $0.contains("title is required") })
        #expect(broken { $0["openrpc"] = "2.0.0" }.contains { $0.contains("not a 1.3 version") })
        #expect(broken { $0["method"] = [] }.contains { $0.contains("method is not a field") })
        #expect(broken { $0["methods"] = .array(Self.methods(good) + [Self.methods(good)[0]]) }.contains { $0.contains("repeats") })
        #expect(broken { method(&$0, queryIndex) { $0["params"] = .array($0["params"]!.arrayValue! + [$0["params"]!.arrayValue![0]]) } }
            .contains { $0.contains("the param name app repeats") })
        #expect(broken { method(&$0, queryIndex) { $0["errors"] = [["$ref": "#/components/errors/Nope"]] } }.contains { $0.contains("does not resolve") })
        #expect(broken { method(&$0, queryIndex) { $0["errors"] = [["code": "x", "message": "m"]] } }.contains { $0.contains("must be an integer") })
        #expect(broken { method(&$0, queryIndex) { $0["result"] = ["name": "result", "schema": ["type": "text"]] } }
            .contains { $0.contains("must name JSON Schema types") })
        #expect(broken { method(&$0, queryIndex) { $0["result"] = ["name": "result", "schema": ["maxlength": 3]] } }
            .contains { $0.contains("maxlength is not a JSON Schema keyword") })
        #expect(broken { method(&$0, queryIndex) { $0["examples"] = [["name": "bad", "params": [["name": "app", "value": 5]]]] } }
            .contains { $0.contains("expected string") })
        #expect(broken { method(&$0, queryIndex) { $0["examples"] = [["name": "bad", "params": [["name": "app", "value": "shop"]]]] } }
            .contains { $0.contains("the required param platform is missing") })

        let validator = JSONSchemaValidator(root: good)
        let screen: JSONValue = ["$ref": "#/components/schemas/Screen"]
        #expect(validator.errors(["width": 10, "height": 20], against: screen).isEmpty)
        #expect(!validator.errors(["width": 0, "height": 20], against: screen).isEmpty)
        #expect(!validator.errors(["width": 10], against: screen).isEmpty)
        #expect(!validator.errors(["width": 10, "height": 20, "depth": 1], against: screen).isEmpty)
        #expect(!validator.errors(["width": 1.5, "height": 20], against: screen).isEmpty)
        #expect(!validator.errors("x", against: ["type": "string", "pattern": "^[0-9a-f]{64}$"]).isEmpty)
        #expect(!validator.errors("abcdef", against: ["type": "string", "maxLength": 5]).isEmpty)
        #expect(!validator.errors([1, 1], against: ["type": "array", "uniqueItems": true]).isEmpty)
        #expect(!validator.errors("warm", against: ["enum": ["cold", "hot"]]).isEmpty)
        #expect(!validator.errors(["hasAd": true], against: ["oneOf": [["properties": ["hasAd": ["const": false]]], ["required": ["id"]]]]).isEmpty)
        #expect(validator.errors(["hasAd": false], against: ["oneOf": [["properties": ["hasAd": ["const": false]]], ["required": ["id"]]]]).isEmpty)
        #expect(!validator.errors(3, against: ["anyOf": [["type": "string"], ["minimum": 4]]]).isEmpty)
    }

    @Test("golden examples: one file per documented method, round-tripped through the real codec and valid against the schemas")
    func goldenExamples() throws {
        for api in SocketAPI.all {
            let documented = try Self.document(api.document)
            let golden = try Self.golden(api.document)
            #expect(Set(golden.keys) == Set(Self.names(documented)), "\(api.document): golden files and methods differ")
            let validator = JSONSchemaValidator(root: documented)
            for method in Self.methods(documented) {
                let name = method["name"]!.stringValue!
                let cases = golden[name] ?? []
                let codec = try #require(api.codecs[name])
                let (paramsSchema, resultSchema) = Self.schemas(method)
                let errorCodes = Set((method["errors"]?.arrayValue ?? []).compactMap { entry in
                    (entry["$ref"]?.stringValue.flatMap { JSONSchemaValidator.resolve($0, in: documented) } ?? entry)["code"]?.intValue
                })
                // Every example of the document is a golden case, the same.
                for example in method["examples"]?.arrayValue ?? [] {
                    let params = JSONValue.object(JSONObject(members: (example["params"]?.arrayValue ?? []).map {
                        (key: $0["name"]!.stringValue!, value: $0["value"]!)
                    }))
                    let match = cases.first { $0.name == example["name"]?.stringValue }
                    #expect(match?.params == params && match?.result == example["result"]?["value"],
                            "\(name): the example \(example["name"]?.stringValue ?? "?") differs from its golden case")
                }
                #expect(cases.contains { $0.error != nil }, "\(name) has no golden error case")
                for golden in cases {
                    let label = "\(api.document) \(name) \(golden.name)"
                    if let error = golden.error {
                        let code = try #require(error["code"]?.intValue, "\(label): an error needs a code")
                        #expect(errorCodes.contains(code), "\(label): \(code) is not listed in the method's errors")
                        let paramErrors = validator.errors(golden.params, against: paramsSchema)
                        if code == JSONRPCError.invalidParamsCode {
                            // What the server refuses, the schema refuses too.
                            #expect(!paramErrors.isEmpty, "\(label): the schema accepts params the service refuses")
                        } else {
                            #expect(paramErrors.isEmpty, "\(label): \(paramErrors)")
                            #expect(try codec.params(golden.params) == golden.params, "\(label): params changed through the codec")
                        }
                        continue
                    }
                    let result = try #require(golden.result, "\(label): a case needs a result or an error")
                    let paramErrors = validator.errors(golden.params, against: paramsSchema)
                    let resultErrors = validator.errors(result, against: resultSchema)
                    #expect(paramErrors.isEmpty && resultErrors.isEmpty, "\(label): \(paramErrors + resultErrors)")
                    #expect(try codec.params(golden.params) == golden.params, "\(label): params changed through the codec")
                    #expect(try codec.result(result) == result, "\(label): the result changed through the codec")
                }
            }
        }
    }

    @Test("rpc.discover on each socket equals its document; the golden errors are what the services answer")
    func served() async throws {
        try await withCampaignService { campaignd in
            // The edge reaches no campaignd (nothing listens on port 1): fresh, as the documents' error cases assume.
            try await withEdge(connectedTo: campaignd, sync: "tcp://127.0.0.1:1", updates: "tcp://127.0.0.1:1") { deliveryd in
                try await Self.served(campaignd.endpoints, deliveryd.endpoints, context: campaignd.context)
            }
        }
    }

    static func served(_ campaignEndpoints: [String: String], _ edgeEndpoints: [String: String], context: ZMQContext) async throws {
        for (name, endpoint) in [("campaignd-admin", campaignEndpoints["admin"]!), ("campaignd-sync", campaignEndpoints["sync"]!),
                                 ("deliveryd-client", edgeEndpoints["client"]!)] {
            let client = try RPCClient(context: context, configuration: RPCClientConfiguration(endpoint: endpoint))
            let served = try await client.call("rpc.discover", params: nil)
            let documented = try Self.document(name)
            #expect(Self.names(served) == Self.names(documented), "\(name): methods in code and in proto-docs differ")
            let same = served == documented
            #expect(same, "\(name): run proto-docs/generate.sh")
            // A fresh service answers each golden error case (those that need no state) exactly so.
            for cases in try Self.golden(name).values {
                for golden in cases where golden.error != nil && golden.needs == nil {
                    do {
                        let result = try await client.call(golden.method, params: golden.params)
                        Issue.record("\(name) \(golden.method) \(golden.name): answered \(result.jsonText)")
                    } catch let error as JSONRPCError {
                        #expect(error.json == golden.error, "\(name) \(golden.method) \(golden.name): answered \(error.json.jsonText)")
                    }
                }
            }
            await client.close()
        }
    }
}
