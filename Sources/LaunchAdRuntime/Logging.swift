import Foundation
import JSONRPC
import Logging

/// How a process writes its logs: one line per event, as text or as JSON.
public enum LogFormat: String, Sendable, CaseIterable {
    case text, json
}

/// Sets up logging once, at the start of `main` (libraries never do).
public enum LogSetup {
    public static func bootstrap(format: LogFormat, level: Logger.Level) {
        // Text lines carry local time. With TZ unset, glibc checks /etc/localtime again for every line (a stat and a
        // lookup of its rules); naming that same file keeps the first reading.
        if getenv("TZ") == nil { setenv("TZ", ":/etc/localtime", 0) }
        switch format {
        case .text:
            LoggingSystem.bootstrap { label in
                var handler = StreamLogHandler.standardError(label: label)
                handler.logLevel = level
                return handler
            }
        case .json:
            LoggingSystem.bootstrap { label in JSONLogHandler(label: label, logLevel: level) }
        }
    }
}

/// Writes each event as one JSON object on standard error: time, level, label, message and metadata fields.
public struct JSONLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level
    public let label: String

    public init(label: String, logLevel: Logger.Level) {
        self.label = label
        self.logLevel = logLevel
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var object: [String: Any] = [
            "time": Date().formatted(.iso8601.year().month().day().time(includingFractionalSeconds: true)),
            "level": event.level.rawValue,
            "label": label,
            "message": event.message.description,
        ]
        var merged = metadata
        if let extra = event.metadata { merged.merge(extra) { $1 } }
        for (key, value) in merged where object[key] == nil { object[key] = Self.plain(value) }
        guard var data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else { return }
        data.append(0x0A)
        FileHandle.standardError.write(data)
    }

    static func plain(_ value: Logger.Metadata.Value) -> Any {
        switch value {
        case .string(let string): string
        case .stringConvertible(let convertible): convertible.description
        case .array(let values): values.map(plain)
        case .dictionary(let values): values.mapValues(plain)
        }
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
