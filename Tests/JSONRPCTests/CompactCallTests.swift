import JSONRPC
import Synchronization
import Testing

@Suite("Compact calls", .timeLimit(.minutes(1)))
struct CompactCallTests {
    static func read<T>(_ text: String, _ body: (inout CompactReader) -> T) -> (value: T, offset: Int) {
        Array(text.utf8).withUnsafeBytes { bytes in
            var reader = CompactReader(bytes)
            let value = body(&reader)
            return (value, reader.offset)
        }
    }

    @Test("strings: plain ASCII, nothing below a space, no escapes; or nothing", arguments: [
        (#""shop""#, "shop"), (#""""#, ""), ("\"a b~\u{7F}\"", "a b~\u{7F}"), (#""12345678901234567890x","#, "12345678901234567890x"),
        (#""a\"b""#, nil), (#""a\\b""#, nil), (#""\u00e9""#, nil), ("\"caf\u{E9}\"", nil), ("\"tab\there\"", nil),
        (#""open"#, nil), (#"shop""#, nil), ("", nil),
    ] as [(String, String?)])
    func strings(_ text: String, _ expected: String?) {
        let (value, offset) = Self.read(text) { reader in reader.string().map { String(decoding: $0, as: UTF8.self) } }
        #expect(value == expected)
        if let expected { #expect(offset == expected.utf8.count + 2) }
    }

    @Test("integers: JSON's grammar, at most 18 digits, no fraction or exponent", arguments: [
        ("0", 0), ("7", 7), ("-12", -12), ("2556}", 2556), ("123456789012345678", 123_456_789_012_345_678), ("-0", 0),
        ("1234567890123456789", nil), ("01", nil), ("-", nil), ("+1", nil), ("1.0", nil), ("1e3", nil), ("1E3", nil),
        ("-01", nil), ("", nil), ("x", nil), ("00", nil), ("10", 10), ("-9e", nil), ("5.", nil),
    ] as [(String, Int?)])
    func integers(_ text: String, _ expected: Int?) {
        let (value, offset) = Self.read(text) { $0.int() }
        #expect(value == expected)
        // Nothing is taken when nothing is read.
        if expected == nil { #expect(offset == 0) }
    }

    @Test("a key is a string and its colon")
    func keys() {
        #expect(Self.read(#""app":"x""#) { $0.key().map { String(decoding: $0, as: UTF8.self) } } == ("app", 6))
        #expect(Self.read(#""app" :"x""#) { $0.key() }.value == nil)
        #expect(Self.read(#""app""#) { $0.key() }.value == nil)
    }

    enum Keys: Int, JSONFieldKey {
        case a, b, backgroundSeconds, c
    }

    @Test("a member is a name of the fields taken once: its key, or nothing for a name not taken or one seen before")
    func members() {
        let fields = JSONFields(Keys.self)
        func keys(_ text: String) -> [Keys?] {
            Self.read(text) { reader in
                var seen: UInt64 = 0, found: [Keys?] = []
                repeat {
                    let member = reader.member(&seen, in: fields)
                    found.append(member)
                    guard member != nil, reader.int() != nil else { break }
                } while reader.take(UInt8(ascii: ","))
                return found
            }.value
        }
        #expect(keys(#""a":1,"b":2"#) == [.a, .b])
        #expect(keys(#""c":1,"backgroundSeconds":2,"a":3"#) == [.c, .backgroundSeconds, .a])
        #expect(keys(#""b":1,"a":2,"a":3"#) == [.b, .a, nil])
        #expect(keys(#""a":1,"x":2"#) == [.a, nil])
        #expect(keys(#""backgroundSecondz":1"#) == [nil])
        #expect(keys(#""backgroundSecond":1"#) == [nil])
        #expect(keys(#""":1"#) == [nil])
        #expect(keys(#""a"1"#) == [nil])
    }

    @Test("fields are looked up by their names, whatever the order; their keys name members, not array indices")
    func fieldLookup() {
        let fields = JSONFields(Keys.self)
        #expect(fields.count == 4)
        for key in Keys.allCases {
            #expect(fields.key(named: key.stringValue) == key)
            #expect(key.intValue == nil)
            #expect(Keys(intValue: key.rawValue) == nil)
        }
        #expect(fields.key(named: "d") == nil)
        #expect(fields.key(named: "A") == nil)
        #expect(fields.key(named: "") == nil)
    }

    /// A method whose compact reader reads `{"n":<integer>}`; the counters count the params read compactly and
    /// the general way, and the handler's runs.
    static func dispatchers() -> (compact: JSONRPCDispatcher, general: JSONRPCDispatcher, counters: [Counter]) {
        struct Params: Codable, Sendable { var n: Int }
        let compactReads = Counter(), generalReads = Counter(), runs = Counter()
        var table = MethodTable()
        table.register(RPCMethod<Params, Int>("double", summary: "Twice n."), reading: { json in
            generalReads.add()
            return try json.decode(Params.self).n
        }, checking: { $0.n }, compact: { reader in
            guard reader.take(UInt8(ascii: "{")), let key = reader.key(), CompactReader.equals(key, "n"), let n = reader.int(),
                  reader.take(UInt8(ascii: "}")) else { return nil }
            compactReads.add()
            return n
        }, writing: { n, context, json in
            runs.add()
            guard n >= 0 else { throw JSONRPCError.invalidParams(field: "n", "must not be negative") }
            json.write(JSONValue.object(["twice": .number(JSONNumber(n * 2)), "id": context.id?.json ?? .string("none")]))
        })
        table.register(RPCMethod<Params, Int>("plain", summary: "No compact reader."), inline: { params, _ in params.n })
        let info = OpenRPCInfo(title: "compact", version: "1")
        return (JSONRPCDispatcher(methods: table, info: info), JSONRPCDispatcher(methods: table, info: info, compactCalls: false),
                [compactReads, generalReads, runs])
    }

    final class Counter: Sendable {
        private let value = Atomic<Int>(0)
        func add() { value.add(1, ordering: .relaxed) }
        var count: Int { value.load(ordering: .relaxed) }
    }

    static func answer(_ dispatcher: JSONRPCDispatcher, _ text: String) -> String? {
        switch dispatcher.dispatch(Array(text.utf8)) {
        case .reply(let writer): String(decoding: writer.bytes, as: UTF8.self)
        case .noReply: nil
        case .deferred: "deferred"
        }
    }

    @Test("a compact call is answered as the general way answers it, and only compact calls take the compact way", arguments: [
        (#"{"jsonrpc":"2.0","id":1,"method":"double","params":{"n":21}}"#, true),
        (#"{"method":"double","id":"a-1","jsonrpc":"2.0","params":{"n":0}}"#, true),
        (#"{"id":-5,"jsonrpc":"2.0","method":"double","params":{"n":3}}"#, true),
        (#"{"jsonrpc":"2.0","id":1,"method":"double","params":{"n":-1}}"#, true),  // the handler's own error
        // Integer ids reach the handler with the text they came with.
        (#"{"jsonrpc":"2.0","id":0,"method":"double","params":{"n":1}}"#, true),
        (#"{"jsonrpc":"2.0","id":-0,"method":"double","params":{"n":1}}"#, true),
        (#"{"jsonrpc":"2.0","id":-999999999999999999,"method":"double","params":{"n":1}}"#, true),
        (#"{"jsonrpc":"2.0","id":1234567890123456789,"method":"double","params":{"n":1}}"#, false),
        (#"{"jsonrpc":"2.0", "id":1,"method":"double","params":{"n":21}}"#, false),
        (#"{"jsonrpc":"2.0","id":1,"method":"double","params":{"n":21}} "#, false),
        (#"{"jsonrpc":"2.0","id":1,"method":"double","params":{"n":21},"x":1}"#, false),
        (#"{"jsonrpc":"2.0","id":1,"method":"double","params":{"n":21}}}"#, false),
        (#"{"params":{"n":21},"jsonrpc":"2.0","id":1,"method":"double"}"#, false),
        (#"{"jsonrpc":"2.0","method":"double","params":{"n":21}}"#, false),
        (#"{"jsonrpc":"2.0","id":null,"method":"double","params":{"n":21}}"#, false),
        (#"{"jsonrpc":"2.0","id":1.5,"method":"double","params":{"n":21}}"#, false),
        (#"{"jsonrpc":"2.0","id":"\u0041","method":"double","params":{"n":21}}"#, false),
        (#"{"jsonrpc":"2.0","id":1,"id":2,"method":"double","params":{"n":21}}"#, false),
        (#"{"jsonrpc":"2.0","jsonrpc":"2.0","id":1,"method":"double","params":{"n":21}}"#, false),
        (#"{"jsonrpc":"1.0","id":1,"method":"double","params":{"n":21}}"#, false),
        (#"{"jsonrpc":"2.0","id":1,"method":"doubl\u0065","params":{"n":21}}"#, false),
        (#"{"jsonrpc":"2.0","id":1,"method":"double","method":"plain","params":{"n":21}}"#, false),
        (#"{"jsonrpc":"2.0","id":1,"method":"plain","params":{"n":21}}"#, false),
        (#"{"jsonrpc":"2.0","id":1,"method":"nope","params":{"n":21}}"#, false),
        (#"{"jsonrpc":"2.0","id":1,"method":"double","params":{"n":"21"}}"#, false),
        (#"{"jsonrpc":"2.0","id":1,"method":"double","params":{"n":21,"n":22}}"#, false),
        (#"{"jsonrpc":"2.0","id":1,"method":"double","params":[21]}"#, false),
        (#"{"jsonrpc":"2.0","id":1,"method":"double","params":{"n":021}}"#, false),
        (#"{"jsonrpc":"2.0","id":1,"method":"double"}"#, false),
        (#"[{"jsonrpc":"2.0","id":1,"method":"double","params":{"n":21}}]"#, false),
        (#"{"jsonrpc":"2.0","id":1,"method":"double","params":{"n":21"#, false),
        (#""#, false),
    ] as [(String, Bool)])
    func sameAnswers(_ message: String, _ compact: Bool) {
        let (fast, general, counters) = Self.dispatchers()
        let answer = Self.answer(fast, message)
        // Taken the compact way: read compactly, never the general way, and handled (params read compactly but
        // followed by something else go the general way, which may refuse the call before reading them).
        let taken = counters.map(\.count) == [1, 0, 1]
        #expect(taken == compact)
        #expect(answer == Self.answer(general, message))
        if compact { #expect(answer?.contains(#""twice":"#) == true || answer?.contains(#""field":"n""#) == true, "\(answer ?? "")") }
    }

    @Test("the compact way stays off when no method has a compact reader, or the nesting limit is below what a compact call may reach")
    func off() {
        var table = MethodTable()
        table.register(RPCMethod<[Int], Int>("sum", summary: "The sum."), reading: { try $0.decode([Int].self).reduce(0, +) },
                       checking: { $0.reduce(0, +) }, compact: { _ in nil }, writing: { sum, _, json in json.write(JSONValue.number(JSONNumber(sum))) })
        let info = OpenRPCInfo(title: "t", version: "1")
        var shallow = JSONRPCDispatcher.Limits()
        shallow.maxDepth = CompactReader.maxDepth - 1
        #expect(JSONRPCDispatcher(methods: table, info: info).compactCalls)
        #expect(!JSONRPCDispatcher(methods: table, info: info, limits: shallow).compactCalls)
        #expect(!JSONRPCDispatcher(methods: table, info: info, compactCalls: false).compactCalls)
        #expect(!JSONRPCDispatcher(methods: MethodTable(), info: info).compactCalls)
        #expect(!Self.dispatchers().general.compactCalls && Self.dispatchers().compact.compactCalls)
    }
}
