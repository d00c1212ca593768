import JSONRPC
import LaunchAdDomain

/// How both engines keep a campaign: its JSON, as the wire has it.
enum CampaignJSON {
    static func encode(_ campaign: Campaign) throws -> String {
        String(decoding: try JSONValueEncoder().encodeJSON(campaign), as: UTF8.self)
    }

    static func decode(_ body: String) throws -> Campaign {
        try JSONValueDecoder(rejectUnknownKeys: false).decode(Campaign.self, fromJSON: Array(body.utf8))
    }
}
