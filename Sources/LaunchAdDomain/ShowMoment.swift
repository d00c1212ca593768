/// When the app shows the ad an answer names: the answer's `showMoment`, a number on every binding.
public enum ShowMoment: Int, Sendable {
    /// 0: at this launch.
    case now = 0
    /// 1: download it now, show it from the cache at a later launch.
    case later = 1

    /// A forced campaign is shown now, and so is one whose creative the client already holds (`cached`, the
    /// sha256 it lists); any other is for a later launch. Decided per query: most phones list nothing or a few
    /// creatives, so an empty list costs no hashing and a forced campaign no lookup at all.
    @inlinable
    public init(forced: Bool, sha256: String, cached: Set<String>) {
        self = forced || (!cached.isEmpty && cached.contains(sha256)) ? .now : .later
    }
}
