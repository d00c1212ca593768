import Foundation
import LaunchAdDomain

/// Sleeps until the wall clock has passed `time`. For tests about elapsed time itself (a campaign's end passing
/// while a service is down), never as a wait for an event that can be awaited.
public func sleepUntil(_ time: Timestamp) async throws {
    while true {
        let left = time.milliseconds - Timestamp(seconds: Date().timeIntervalSince1970).milliseconds
        if left < 0 { return }
        try await Task.sleep(for: .milliseconds(left + 1))
    }
}
