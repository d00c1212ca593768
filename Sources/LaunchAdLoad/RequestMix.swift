/// Which methods a run sends, by share in percent: `query=90,prefetch=5,report=5`.
public struct RequestMix: Sendable, Equatable, CustomStringConvertible {
    public var query: Int
    public var prefetch: Int
    public var report: Int

    public init(query: Int = 100, prefetch: Int = 0, report: Int = 0) {
        self.query = query
        self.prefetch = prefetch
        self.report = report
    }

    /// Parses `query=90,prefetch=5,report=5` (names may be omitted; shares must add up to 100).
    public init(parsing text: String) throws(LoadConfigurationError) {
        var mix = RequestMix(query: 0)
        var seen = Set<String>()
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let pair = part.split(separator: "=", maxSplits: 1).map(String.init)
            guard pair.count == 2, let share = Int(pair[1]), (0...100).contains(share) else {
                throw .invalid("--mix", "expected NAME=PERCENT pairs such as query=90,report=10, got \"\(part)\"")
            }
            guard seen.insert(pair[0]).inserted else { throw .invalid("--mix", "\(pair[0]) is named twice") }
            switch pair[0] {
            case "query": mix.query = share
            case "prefetch": mix.prefetch = share
            case "report": mix.report = share
            default: throw .invalid("--mix", "unknown method \"\(pair[0])\" (query, prefetch or report)")
            }
        }
        guard mix.query + mix.prefetch + mix.report == 100 else {
            throw .invalid("--mix", "shares add up to \(mix.query + mix.prefetch + mix.report), not 100")
        }
        guard mix.query > 0 || mix.report == 0 else {
            throw .invalid("--mix", "report needs some query share: a report names a campaign a query answered")
        }
        self = mix
    }

    public var description: String { "query=\(query),prefetch=\(prefetch),report=\(report)" }
}
