import Foundation
import LaunchAdKit

/// A surface that draws nothing and writes down each call with the virtual time it came at.
@MainActor
final class RecordingSurface: AdSurface {
    enum Call: Equatable {
        case showWindow(AdRect)
        case launchScreen(Bool)
        case loadMedia(AdMedia, frame: AdRect, clip: AdRect)
        case animationFrame(Int)
        case video(playing: Bool)
        case element(AdElement, String, AdRect)
        case hide(AdElement)
        case logo(AdRect)
        case fadeOut(Double)
        case open(URL)
        case remove
    }

    private let clock: ManualClock
    private let start: Date
    /// Where the calls go: kept by the test, so they outlive the surface.
    let log: CallLog
    private(set) var events: AdSurfaceEvents?
    /// What `open` answers.
    var opens = true

    init(clock: ManualClock, log: CallLog) {
        self.clock = clock
        self.log = log
        start = clock.now()
    }

    /// Times to the microsecond: what the clock's floating point adds below is noise.
    private func note(_ call: Call) {
        log.calls.append(((clock.now().timeIntervalSince(start) * 1e6).rounded() / 1e6, call))
    }

    func showWindow(frame: AdRect, events: AdSurfaceEvents) {
        self.events = events
        note(.showWindow(frame))
    }
    func setLaunchScreenVisible(_ visible: Bool) { note(.launchScreen(visible)) }
    func loadMedia(_ media: AdMedia, frame: AdRect, clip: AdRect) { note(.loadMedia(media, frame: frame, clip: clip)) }
    func showAnimationFrame(_ index: Int) { note(.animationFrame(index)) }
    func setVideoPlaying(_ playing: Bool) { note(.video(playing: playing)) }
    func showElement(_ element: AdElement, text: String, frame: AdRect) { note(.element(element, text, frame)) }
    func hideElement(_ element: AdElement) { note(.hide(element)) }
    func showLogo(frame: AdRect) { note(.logo(frame)) }
    func fadeOut(duration: Double) { note(.fadeOut(duration)) }
    func open(_ url: URL, completion: @escaping @MainActor @Sendable (Bool) -> Void) {
        note(.open(url))
        completion(opens)
    }
    func remove() {
        note(.remove)
        // A removed window answers nothing more.
        events = nil
    }
}

/// The calls a surface received, in order, with their times in seconds from the start.
@MainActor
final class CallLog {
    var calls: [(at: Double, call: RecordingSurface.Call)] = []
}

/// Timers on virtual time: the test moves the clock, and what falls due runs in order.
@MainActor
final class VirtualScheduler: AdScheduler {
    private final class Pending {
        let due: Date
        let order: Int
        let action: @MainActor @Sendable () -> Void
        var cancelled = false
        init(due: Date, order: Int, action: @escaping @MainActor @Sendable () -> Void) {
            self.due = due
            self.order = order
            self.action = action
        }
    }

    let clock: ManualClock
    private var pending: [Pending] = []
    private var made = 0

    init(clock: ManualClock) { self.clock = clock }

    func after(_ seconds: Double, _ action: @escaping @MainActor @Sendable () -> Void) -> AdWake {
        made += 1
        let entry = Pending(due: clock.now().addingTimeInterval(max(0, seconds)), order: made, action: action)
        pending.append(entry)
        // The presenter cancels from the main actor, which is where this scheduler lives.
        nonisolated(unsafe) let held = entry
        return AdWake { MainActor.assumeIsolated { held.cancelled = true } }
    }

    /// Wake-ups still to come.
    var waiting: Int { pending.filter { !$0.cancelled }.count }

    /// Moves the clock `seconds` on, running each wake-up at its own time on the way.
    func advance(by seconds: Double) {
        let target = clock.now().addingTimeInterval(seconds)
        while true {
            pending.removeAll { $0.cancelled }
            guard let next = pending.filter({ $0.due <= target }).min(by: { ($0.due, $0.order) < ($1.due, $1.order) }) else { break }
            pending.removeAll { $0 === next }
            if next.due > clock.now() { clock.set(next.due) }
            next.action()
        }
        clock.set(target)
    }
}

/// A delegate that writes down what it hears.
@MainActor
final class RecordingDelegate: LaunchAdDelegate {
    var heard: [String] = []
    /// Whether the app opens jumps itself, and the `closed` it was handed.
    var opensItself = false
    var closeLanding: (@MainActor @Sendable () -> Void)?

    func launchAdDidShow(_ ad: LaunchAd) { heard.append("show") }
    func launchAd(_ ad: LaunchAd, didTick secondsLeft: Int, skipAllowed: Bool) { heard.append("tick \(secondsLeft)\(skipAllowed ? " skip" : "")") }
    func launchAdDidEnd(_ ad: LaunchAd?, reason: EndReason) { heard.append("end \(reason.rawValue)") }
    func launchAd(_ ad: LaunchAd, open jump: LaunchAd.Jump, closed: @escaping @MainActor @Sendable () -> Void) -> Bool {
        heard.append("open \(jump.value)")
        closeLanding = closed
        return opensItself
    }
}
