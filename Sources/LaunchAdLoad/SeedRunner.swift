import Foundation
import JSONRPC
import LaunchAdDomain
import ZeroMQ

/// Creates the campaigns of a scale run (``ScaleCampaigns``) through campaignd's admin socket, one call at a time.
public enum SeedRunner {
    /// Creates campaigns `first ..< first + count` of `app`, live from a minute ago for a day, each with every creative
    /// of `creatives` (sha256 of uploaded creatives). `log` gets a line every 1,000 campaigns.
    public static func run(admin endpoint: String, curve: (serverKey: String, keyPair: CurveKeyPair)?, app: String, first: Int, count: Int,
                           creatives: [String], timeout: Double, log: (String) -> Void = { _ in }) throws {
        guard !creatives.isEmpty else { throw PropagationError.admin("no creatives to give the campaigns") }
        let context = try ZMQContext()
        defer { context.shutdown() }
        let admin = try CallLine(context, endpoint: endpoint, curve: curve)
        let formatter = ISO8601DateFormatter()
        let startsAt = formatter.string(from: Date().addingTimeInterval(-60))
        let endsAt = formatter.string(from: Date().addingTimeInterval(86_400))
        let refs: JSONValue = .array(creatives.map { ["sha256": .string($0)] })
        for i in first..<(first + count) {
            var fields: [JSONObject.Member] = [
                ("name", .string("scale \(i)")), ("app", .string(app)), ("startsAt", .string(startsAt)), ("endsAt", .string(endsAt)),
                ("priority", .number(JSONNumber(ScaleCampaigns.priority(i)))), ("weight", .number(JSONNumber(ScaleCampaigns.weight(i)))),
                ("creatives", refs),
            ]
            let targeting = ScaleCampaigns.targeting(i)
            var target: [JSONObject.Member] = []
            if let platforms = targeting.platforms { target.append(("platforms", .array(platforms.map(JSONValue.string)))) }
            if let regions = targeting.regions { target.append(("regions", .array(regions.map(JSONValue.string)))) }
            if let range = targeting.appVersions {
                var bounds: [JSONObject.Member] = []
                if let min = range.min { bounds.append(("min", .string(min))) }
                if let max = range.max { bounds.append(("max", .string(max))) }
                target.append(("appVersions", .object(JSONObject(members: bounds))))
            }
            if !target.isEmpty { fields.append(("targeting", .object(JSONObject(members: target)))) }
            do {
                _ = try admin.call("campaign.create", .object(JSONObject(members: fields)), timeout: timeout)
            } catch let PropagationError.edge(_, reason) {
                throw PropagationError.admin("campaign.create of scale \(i): \(reason)")
            }
            if (i + 1 - first) % 1000 == 0 { log("created \(i + 1 - first) of \(count) campaigns") }
        }
    }
}
