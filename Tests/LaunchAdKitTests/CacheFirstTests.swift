import Foundation
import LaunchAdAPI
import LaunchAdDomain
import LaunchAdKit
import LaunchAdTesting
import Testing

@Suite("cache first: what is on disk shows at once, and only while it is valid", .timeLimit(.minutes(3)))
struct CacheFirstTests {
    @Test("the first launch shows nothing and caches the answer; the next shows it at once, offline too; with the device's clock past expiresAt, never")
    func offlineAndExpiry() async throws {
        try await withKitWorld { world in
            let campaign = try await world.create()
            let clock = ManualClock()
            let state = world.folder.appendingPathComponent("device")
            let first = try world.client(clock: clock, state: state)
            #expect(await first.launch() == .noAd(.none))
            await first.settle()

            let second = try world.client(clock: clock, state: state)
            let ad = try #require(await second.launch().ad)
            #expect(ad.campaignId == campaign.id && ad.version == campaign.version && ad.sha256 == world.creative && ad.source == .cache)
            #expect(ad.countdown == campaign.countdown && ad.skipAfter == (campaign.skipAfter ?? 0))
            #expect(SHA256Digest.hex(try Data(contentsOf: ad.file)) == world.creative)
            await second.settle()

            // The edge out of reach: the cached ad still shows, a new SDK instance over the same folder.
            let offline = try world.client(clock: clock, state: state, edge: KitWorld.unreachable)
            #expect(await offline.launch().ad?.campaignId == campaign.id)
            await offline.settle()

            // The device's clock past the campaign's end: never shown, offline as online.
            clock.set(Date(timeIntervalSince1970: Double(campaign.endsAt.milliseconds) / 1000 + 1))
            let late = try world.client(clock: clock, state: state, edge: KitWorld.unreachable)
            #expect(await late.launch() == .noAd(.none))
            await late.settle()
        }
    }

    @Test("cache first (not the default, documented so): the launch after a pause or expire still shows what is on disk and learns the change; from the next on the ad is gone, offline too; resumed, it returns")
    func revokeAndPause() async throws {
        try await withKitWorld { world in
            let campaign = try await world.create()
            let state = world.folder.appendingPathComponent("device")
            let sdk = try world.client(state: state)
            _ = await sdk.launch()
            await sdk.settle()
            #expect(await sdk.launch().ad?.campaignId == campaign.id)
            await sdk.settle()

            try await world.apply(AdminAPI.campaignPause, to: campaign.id)
            // Cache first decides before it asks: this launch shows what was on disk, and its answer revokes it.
            // (Revalidate, the default, does not show it: RevalidateTests.)
            #expect(await sdk.launch().ad?.campaignId == campaign.id)
            await sdk.settle()
            #expect(await sdk.launch() == .noAd(.none))
            await sdk.settle()
            let files = try FileManager.default.contentsOfDirectory(atPath: state.appendingPathComponent("cache/creatives").path)
            #expect(files.isEmpty, "the revoked campaign's creative is deleted")
            let offline = try world.client(state: state, edge: KitWorld.unreachable)
            #expect(await offline.launch() == .noAd(.none))

            try await world.apply(AdminAPI.campaignResume, to: campaign.id)
            _ = await sdk.launch()
            await sdk.settle()
            #expect(await sdk.launch().ad?.campaignId == campaign.id)
            await sdk.settle()

            try await world.apply(AdminAPI.campaignExpire, to: campaign.id)
            _ = await sdk.launch()
            await sdk.settle()
            #expect(await sdk.launch() == .noAd(.none))
            await sdk.settle()
            let stillOffline = try world.client(state: state, edge: KitWorld.unreachable)
            #expect(await stillOffline.launch() == .noAd(.none))
        }
    }

    @Test("a fresh launch follows pause and force at once")
    func freshFollowsAtOnce() async throws {
        try await withKitWorld { world in
            let first = try await world.create(name: "a")
            let sdk = try world.client(.fresh)
            let ad = try #require(await sdk.launch().ad)
            let bytes = try Data(contentsOf: ad.file)
            #expect(ad.campaignId == first.id && ad.source == .fresh && SHA256Digest.hex(bytes) == world.creative)
            await sdk.settle()

            let second = try await world.create(name: "b")
            try await world.apply(AdminAPI.campaignForce, to: second.id)
            #expect(await sdk.launch().ad?.campaignId == second.id)
            await sdk.settle()
            try await world.apply(AdminAPI.campaignPause, to: second.id)
            #expect(await sdk.launch().ad?.campaignId == first.id)
            await sdk.settle()
            try await world.apply(AdminAPI.campaignPause, to: first.id)
            #expect(await sdk.launch() == .noAd(.none))
            await sdk.settle()
        }
    }

    @Test("hot starts: the edge applies minBackgroundSeconds to fresh launches; from the cache, a hot start waits at least as long as the edge showed it needs")
    func hotStarts() async throws {
        try await withKitWorld { world in
            let campaign = try await world.create { fields in
                fields.launchTypes = [.cold, .hot]
                fields.minBackgroundSeconds = 60
            }
            let fresh = try world.client(.fresh)
            #expect(await fresh.launch(.hot(backgroundSeconds: 30)) == .noAd(.none))
            #expect(await fresh.launch(.hot(backgroundSeconds: 90)).ad?.campaignId == campaign.id)
            await fresh.settle()

            let state = world.folder.appendingPathComponent("hot")
            let cached = try world.client(state: state)
            #expect(await cached.launch(.hot(backgroundSeconds: 90)) == .noAd(.none))  // nothing on disk yet
            await cached.settle()
            let offline = try world.client(state: state, edge: KitWorld.unreachable)
            #expect(await offline.launch(.hot(backgroundSeconds: 30)) == .noAd(.none))
            #expect(await offline.launch(.hot(backgroundSeconds: 90)).ad?.campaignId == campaign.id)
            #expect(await offline.launch(.hot(backgroundSeconds: 600)).ad?.campaignId == campaign.id)
            await offline.settle()
        }
    }
}
