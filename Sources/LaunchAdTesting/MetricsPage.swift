import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A service's `/metrics` page (Prometheus's text format) as the tests read it: fetched once, then its samples looked
/// up by name and labels.
public struct MetricsPage: Sendable {
    public let text: String

    public init(text: String) {
        self.text = text
    }

    /// The page served at `http` (the host and port a ready file names), fetched now.
    public static func fetch(_ http: String) async throws -> MetricsPage {
        let (body, _) = try await URLSession.shared.data(from: URL(string: "http://\(http)/metrics")!)
        return MetricsPage(text: String(decoding: body, as: UTF8.self))
    }

    /// The sample lines: every line but comments (`# HELP`, `# TYPE`) and blank ones.
    public var samples: [Substring] {
        text.split(separator: "\n").filter { !$0.hasPrefix("#") }
    }

    /// The value of the first sample of `series` whose labels hold each of `labels` (as written, such as
    /// `route="rpc"`); `nil` when there is none. `series` is a metric's name (exactly: `name_total` is not `name`), which
    /// matches its samples whatever their labels, or a name and its labels as the page writes them
    /// (`name{a="1",b="2"}`), which matches that sample alone.
    public func value(_ series: String, labels: [String] = []) -> Double? {
        let whole = series.contains("{")
        for line in samples {
            let name = line.prefix { $0 != " " && $0 != "{" }
            let labelled = line.dropFirst(name.count).prefix { $0 != " " }
            guard whole ? line.hasPrefix(series + " ") : name == series, labels.allSatisfy({ labelled.contains($0) }),
                  let value = line.split(separator: " ").last else { continue }
            return Double(value)
        }
        return nil
    }

    /// The sample lines that contain `text`.
    public func lines(containing text: String) -> [String] {
        samples.filter { $0.contains(text) }.map(String.init)
    }
}

/// A process the tests started that serves `/metrics` at the `http` endpoint its ready file names: campaignd, a relay,
/// an edge.
public protocol ServesMetrics {
    var endpoints: [String: String] { get }
}

extension ServesMetrics {
    /// Its `/metrics`, fetched now.
    public func metrics() async throws -> MetricsPage {
        guard let http = endpoints["http"] else { throw NoHTTPEndpoint(endpoints: endpoints.keys.sorted()) }
        return try await MetricsPage.fetch(http)
    }
}

/// A process with no `http` endpoint was asked for its `/metrics`.
public struct NoHTTPEndpoint: Error, CustomStringConvertible {
    public let endpoints: [String]
    public var description: String {
        "no http endpoint to read /metrics from (endpoints: \(endpoints.joined(separator: ", ")))"
    }
}
