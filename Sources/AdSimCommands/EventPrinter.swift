import Foundation
import LaunchAdKit

/// Prints a launch's events: `word key=value ...` lines for people, one JSON object a line for scripts, each with
/// `ms`, the milliseconds since the printer was made (real time, whatever the session clock's speed).
final class EventPrinter: Sendable {
    let json: Bool
    private let start = ContinuousClock.now

    init(json: Bool) { self.json = json }

    private var milliseconds: Int {
        let elapsed = ContinuousClock.now - start
        return Int(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000)
    }

    func print(_ event: PlaybackEvent) {
        switch event {
        case .waiting:
            emit("waiting", [])
        case .show(let id, let version, let sha256, let source):
            emit("show", [("campaignId", .int(Int(id))), ("version", .int(version)), ("sha256", .text(sha256)), ("source", .text(source.rawValue))])
        case .tick(let left, let allowed):
            emit("tick", [("secondsLeft", .int(left)), ("skipAllowed", .bool(allowed))])
        case .end(let reason, let jump):
            var fields: [(String, Value)] = [("reason", .text(reason.rawValue))]
            if let jump { fields += [("jumpType", .text(jump.type)), ("jumpValue", .text(jump.value))] }
            emit("end", fields)
        case .report(let kind, let eventId, let sent):
            emit("report", [("type", .text(kind.rawValue)), ("eventId", .text(eventId)), ("sent", .bool(sent))])
        }
    }

    func print(_ summary: LaunchAdClient.RefreshSummary) {
        if json {
            emit("refresh", [("kept", .list(summary.kept)), ("deleted", .list(summary.deleted)),
                             ("revoked", .ints(summary.revoked.map { Int($0) })),
                             ("failed", .list(summary.failed.keys.sorted().map { "\($0): \(summary.failed[$0]!)" }))])
            return
        }
        var lines = summary.kept.map { "kept \($0)" } + summary.deleted.map { "deleted \($0)" } + summary.revoked.map { "revoked \($0)" }
        lines += summary.failed.sorted(by: { $0.key < $1.key }).map { "failed \($0.key) \($0.value)" }
        FileHandle.standardOutput.write(Data(lines.map { $0 + "\n" }.joined().utf8))
    }

    /// `adsim why`'s answer: who the ad is for, who paid, and each reason as `field=value`; for people, the texts
    /// quoted as JSON strings (an advertiser's name, a version range hold spaces, commas, quotes).
    func print(_ why: AdWhy) {
        var fields: [(String, Value)] = [("campaignId", .int(Int(why.campaignId)))]
        if let advertiser = why.advertiser { fields.append(("advertiser", .quoted(advertiser))) }
        if let paidBy = why.paidBy { fields.append(("paidBy", .quoted(paidBy))) }
        fields.append(("reasons", .quotedList(why.reasons.map { "\($0.field.rawValue)=\($0.value)" })))
        emit("why", fields)
    }

    enum Value {
        case int(Int), text(String), bool(Bool), list([String]), ints([Int])
        /// A text or a list of them, for people written as JSON (quoted, escaped) so that no value runs into the next.
        case quoted(String), quotedList([String])

        var plain: String {
            switch self {
            case .int(let value): String(value)
            case .text(let value): value
            case .bool(let value): String(value)
            case .list(let values): values.joined(separator: ",")
            case .ints(let values): values.map(String.init).joined(separator: ",")
            case .quoted(let value): Self.jsonText(value)
            case .quotedList(let values): Self.jsonText(values)
            }
        }

        private static func jsonText(_ value: Any) -> String {
            let data = (try? JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed, .withoutEscapingSlashes])) ?? Data()
            return String(decoding: data, as: UTF8.self)
        }

        var json: Any {
            switch self {
            case .int(let value): value
            case .text(let value): value
            case .bool(let value): value
            case .list(let values): values
            case .ints(let values): values
            case .quoted(let value): value
            case .quotedList(let values): values
            }
        }
    }

    private func emit(_ name: String, _ fields: [(String, Value)]) {
        let ms = milliseconds
        let line: String
        if json {
            var object: [String: Any] = ["event": name, "ms": ms]
            for (key, value) in fields { object[key] = value.json }
            let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
            line = String(decoding: data, as: UTF8.self)
        } else {
            line = ([name] + fields.map { "\($0.0)=\($0.1.plain)" }).joined(separator: " ")
        }
        // Written at once, unbuffered: a script reading the timeline sees each event as it happens.
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}
