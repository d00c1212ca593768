import JSONRPC
import LaunchAdAPI
import LaunchAdDomain

/// A write the console offers: each is the admin socket's method of the same name, run through its handler.
enum ConsoleOperation: String, CaseIterable, Sendable {
    case pause, resume, expire, force, unforce

    var method: RPCMethod<CampaignID, CampaignChangeResult> {
        switch self {
        case .pause: AdminAPI.campaignPause
        case .resume: AdminAPI.campaignResume
        case .expire: AdminAPI.campaignExpire
        case .force: AdminAPI.campaignForce
        case .unforce: AdminAPI.campaignUnforce
        }
    }

    var title: String { rawValue.prefix(1).uppercased() + rawValue.dropFirst() }

    /// What the confirmation says the write does.
    var consequence: String {
        switch self {
        case .pause: "Edges stop answering it and tell devices to drop it from their caches until it is resumed."
        case .resume: "It answers again within its window."
        case .expire: "It is taken down at once, for good: every edge stops answering it and devices delete it. This cannot be undone."
        case .force: "It answers first, on every edge, from the next launch query."
        case .unforce: "It goes back to its priority and weight."
        }
    }

    /// Whether the write makes sense in `campaign`'s present state (the handler is the judge; this only decides which
    /// buttons to show).
    func offered(for campaign: Campaign) -> Bool {
        switch self {
        case .pause: campaign.state == .scheduled || campaign.state == .live
        case .resume: campaign.state == .paused
        case .expire: !campaign.state.isFinal
        case .force: !campaign.forced && !campaign.state.isFinal
        case .unforce: campaign.forced && !campaign.state.isFinal
        }
    }
}
