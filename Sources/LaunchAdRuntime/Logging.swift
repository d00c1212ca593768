import DurableFiles
import Foundation
import JSONRPC
import Locking
import Logging

/// How a process writes its logs: one line per event, as text or as JSON.
public enum LogFormat: String, Sendable, CaseIterable {
    case text, json
}

/// Sets up logging once, at the start of `main` (libraries never do).
public enum LogSetup {
    public static func bootstrap(format: LogFormat, level: Logger.Level) {
        // Text lines carry local time. With TZ unset, glibc checks /etc/localtime again for every reading (a stat and
        // a lookup of its rules); naming that same file keeps the first reading.
        if getenv("TZ") == nil { setenv("TZ", ":/etc/localtime", 0) }
        switch format {
        case .text: LoggingSystem.bootstrap { label in TextLogHandler(label: label, logLevel: level) }
        case .json: LoggingSystem.bootstrap { label in JSONLogHandler(label: label, logLevel: level) }
        }
    }

    /// The least level a service logs, from its `--log-level` (swift-log's names); `nil` for another word.
    public static func level(named name: String) -> Logger.Level? { Logger.Level(rawValue: name) }

    /// What `--log-level` takes, for its help and its error: "trace, debug, ... or critical".
    public static let levelNames: String = {
        let names = Logger.Level.allCases.map(\.rawValue)
        return names.dropLast().joined(separator: ", ") + " or " + names.last!
    }()
}

/// Writes each event as one line of text on standard error, as swift-log's `StreamLogHandler` lays it out (local
/// time to the second, level, label, metadata sorted by key, source in brackets, message), for less: the time is
/// formatted once a second, and the line goes out in one `write` (at debug, an edge logs each change it applies).
public struct TextLogHandler: MetadataFieldsHandler {
    public var logLevel: Logger.Level
    public let label: String
    /// The handler's own metadata, and as the line writes it when an event brings none.
    public var metadata: Logger.Metadata = [:] {
        didSet { prettyMetadata = Self.prettify(metadata) }
    }
    private var prettyMetadata = ""

    public init(label: String, logLevel: Logger.Level) {
        self.label = label
        self.logLevel = logLevel
    }

    public func log(event: LogEvent) {
        LogLine.write(Array(line(event, time: LogClock.shared.localSeconds()).utf8))
    }

    /// The line `event` makes, at `time`.
    func line(_ event: LogEvent, time: String) -> String {
        let pretty = LogLine.merged(metadata, event).map(Self.prettify) ?? prettyMetadata
        var line = time
        line += " \(event.level)"
        if !label.isEmpty { line += " " + label }
        line += ":"
        if !pretty.isEmpty { line += " " + pretty }
        line += " [\(event.source)] \(event.message)\n"
        return line
    }

    /// `key=value` pairs sorted by key, as `StreamLogHandler` writes them.
    static func prettify(_ metadata: Logger.Metadata) -> String {
        metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
    }
}

/// Writes each event as one JSON object on standard error: time (UTC, to the millisecond), level, label, message
/// and metadata fields, keys sorted. The time is formatted once a second, and the line goes out in one `write`.
public struct JSONLogHandler: MetadataFieldsHandler {
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level
    public let label: String

    public init(label: String, logLevel: Logger.Level) {
        self.label = label
        self.logLevel = logLevel
    }

    /// The fields every line has; metadata of the same names does not replace them.
    private static let reserved: Set<String> = ["time", "level", "label", "message"]

    public func log(event: LogEvent) {
        LogLine.write(line(event, time: LogClock.shared.utcMilliseconds()).bytes)
    }

    /// The line `event` makes, at `time`.
    func line(_ event: LogEvent, time: String) -> JSONWriter {
        var fields: [(key: String, value: JSONValue)] = [
            ("time", .string(time)), ("level", .string(event.level.rawValue)),
            ("label", .string(label)), ("message", .string(event.message.description)),
        ]
        for (key, value) in LogLine.merged(metadata, event) ?? metadata where !Self.reserved.contains(key) {
            fields.append((key, Self.json(value)))
        }
        fields.sort { $0.key < $1.key }
        var writer = JSONWriter(reservingCapacity: 256)
        writer.write(.object(JSONObject(members: fields)))
        writer.append(0x0A)
        return writer
    }

    static func json(_ value: Logger.Metadata.Value) -> JSONValue {
        switch value {
        case .string(let string): .string(string)
        case .stringConvertible(let convertible): .string(convertible.description)
        case .array(let values): .array(values.map(json))
        case .dictionary(let values): .object(JSONObject(members: values.sorted { $0.key < $1.key }.map { ($0.key, json($0.value)) }))
        }
    }
}

/// A handler whose metadata fields are its `metadata`, one by one.
public protocol MetadataFieldsHandler: LogHandler {}

extension MetadataFieldsHandler {
    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }
}

/// What the two handlers share: an event's metadata merged with the handler's, and the line's write.
enum LogLine {
    /// The handler's metadata with the event's over it, and an error as `error.message` and `error.type` (as
    /// `StreamLogHandler` adds them); `nil` when the event brings neither.
    static func merged(_ base: Logger.Metadata, _ event: LogEvent) -> Logger.Metadata? {
        let explicit = event.metadata ?? [:]
        guard !explicit.isEmpty || event.error != nil else { return nil }
        var metadata = base
        metadata.merge(explicit) { $1 }
        if let error = event.error {
            metadata["error.message"] = "\(error)"
            metadata["error.type"] = "\(String(reflecting: type(of: error)))"
        }
        return metadata
    }

    /// Writes `bytes` to standard error, whole: one `write` unless the kernel takes part of it. Lines from several
    /// threads do not interleave (each is one write to the shared descriptor); a line the descriptor refuses is lost.
    static func write(_ bytes: [UInt8]) {
        _ = AtomicFile.writeAll(bytes, to: 2)
    }
}

/// The wall clock as log lines write it: each form formatted once a second and kept, since most lines of a second
/// come from a busy one.
final class LogClock: Sendable {
    static let shared = LogClock()

    private struct Formatted {
        var second = Int.min
        var local = ""
        var utc = ""
    }
    private let formatted = Locked(Formatted())

    /// Local time to the second with its offset, `2026-11-28T04:39:06+0000`: now, or at `second` since 1970.
    func localSeconds(at second: Int? = nil) -> String {
        forms(second ?? Self.now().second).local
    }

    /// UTC to the millisecond, `2026-11-28T04:39:06.548Z`: now, or at `time` (seconds since 1970, milliseconds).
    func utcMilliseconds(at time: (second: Int, milliseconds: Int)? = nil) -> String {
        let (second, milliseconds) = time ?? Self.now()
        let digits = String(milliseconds)
        return forms(second).utc + "." + String(repeating: "0", count: 3 - digits.count) + digits + "Z"
    }

    private func forms(_ second: Int) -> Formatted {
        formatted.withLock { formatted in
            if formatted.second != second {
                formatted = Formatted(second: second, local: Self.format(second, "%Y-%m-%dT%H:%M:%S%z", local: true),
                                      utc: Self.format(second, "%Y-%m-%dT%H:%M:%S", local: false))
            }
            return formatted
        }
    }

    private static func now() -> (second: Int, milliseconds: Int) {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return (time.tv_sec, time.tv_nsec / 1_000_000)
    }

    private static func format(_ second: Int, _ pattern: String, local: Bool) -> String {
        var seconds = time_t(second)
        var parts = tm()
        if local { localtime_r(&seconds, &parts) } else { gmtime_r(&seconds, &parts) }
        var buffer = [CChar](repeating: 0, count: 64)
        let count = strftime(&buffer, buffer.count, pattern, &parts)
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// The structured fields the services' logs carry, named the same everywhere, so a log search for one campaign,
/// one edge or one request finds every line about it.
public enum LogField {
    /// The JSON-RPC id of the request that caused the event.
    public static let requestId = "request_id"
    public static let campaignId = "campaign_id"
    public static let edgeId = "edge_id"

    /// A JSON-RPC id as a log field: a string id as it is, a number as its digits, none as `none`.
    public static func requestId(_ id: JSONRPCID?) -> Logger.Metadata.Value {
        switch id {
        case .string(let string): .string(string)
        case .some(let other): .string(other.description)
        case nil: .string("none")
        }
    }
}
