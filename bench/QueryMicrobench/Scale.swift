import CampaignFollowing
import DeliveryService
import Foundation
import LaunchAdAPI
import LaunchAdDomain
import LaunchAdLoad

/// The scale measures (`query-microbench N scale`): an edge state of `count` campaigns of app "shop" with the mix of
/// ``ScaleCampaigns`` (all live, each with every creative of `facts`); with `share`, each has that serve share, as
/// pacing sets it.
func scaleState(_ count: Int, facts: [CreativeFacts], now: Timestamp, share: Double? = nil) -> EdgeState {
    var campaigns: [Int64: Campaign] = [:]
    for i in 0..<count {
        let id = Int64(i + 1)
        campaigns[id] = Campaign(id: id, name: "scale \(i)", app: "shop", startsAt: now.adding(seconds: -60), endsAt: now.adding(seconds: 86_400),
                                 priority: ScaleCampaigns.priority(i), weight: ScaleCampaigns.weight(i), forced: false, countdown: 3,
                                 skippable: true, skipAfter: nil, launchTypes: [.cold], minBackgroundSeconds: nil, jump: .none,
                                 creatives: facts.map { CreativeRef(sha256: $0.sha256) }, targeting: ScaleCampaigns.targeting(i),
                                 frequencyCap: nil, state: .live, version: 1, createdAt: now, updatedAt: now)
        campaigns[id]!.share = share
    }
    return EdgeState(epoch: "bench", seq: Int64(count), campaigns: campaigns, creatives: Dictionary(uniqueKeysWithValues: facts.map { ($0.sha256, $0) }))
}

/// The launch requests of adload's population of `count` devices of app "shop" (platforms, versions, regions,
/// locales and screens mixed as a load run mixes them), all cold starts.
func populationRequests(_ count: Int) -> [LaunchRequest] {
    Population(devices: count, apps: ["shop"], seed: 1).devices.map { device in
        LaunchRequest(app: device.app, platform: device.platform, appVersion: AppVersion(device.appVersion)!, region: device.region,
                      locale: device.locale, deviceId: device.deviceId, screen: (width: device.width, height: device.height))
    }
}

/// Milliseconds each of `changes` successive changes takes to apply to `state` (``EdgeState/applying(_:)``): each
/// moves one campaign to another priority and weight, as an operator's edit does.
func changeApplyTimes(_ state: EdgeState, changes: Int, now: Timestamp) -> [Double] {
    var state = state
    var times: [Double] = []
    let count = state.campaigns.count
    for step in 0..<changes {
        let id = Int64(step * 7919 % count + 1)
        var campaign = state.campaigns[id]!
        campaign.priority = ScaleCampaigns.priority(count + step)
        campaign.weight = ScaleCampaigns.weight(count + step)
        campaign.version += 1
        let change = Change(seq: state.seq + 1, op: .updated, id: id, campaign: campaign, at: now)
        let start = ContinuousClock.now
        state = state.applying([change])
        let elapsed = ContinuousClock.now - start
        times.append(Double(elapsed.components.seconds) * 1e3 + Double(elapsed.components.attoseconds) / 1e15)
    }
    return times
}
