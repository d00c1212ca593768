import Foundation
import LaunchAdKit

/// A device whose clock is set `offset` seconds ahead of another clock (behind when negative): what a phone left
/// offline for a day sees, without the test or the operator waiting a day. Sleeps are the other clock's.
struct OffsetClock: LaunchAdClock {
    let base: any LaunchAdClock
    let offset: Double

    func now() -> Date { base.now().addingTimeInterval(offset) }

    func sleep(seconds: Double) async throws { try await base.sleep(seconds: seconds) }
}
