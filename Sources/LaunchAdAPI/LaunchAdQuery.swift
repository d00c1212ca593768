import Foundation
import JSONRPC
import LaunchAdDomain

/// A parameter of `GET /launch-ad` that is missing, unknown, repeated or wrong: `msg` names it.
public struct LaunchAdQueryError: Error, Equatable, Sendable, CustomStringConvertible {
    public var parameter: String
    public var reason: String
    public init(_ parameter: String, _ reason: String) {
        self.parameter = parameter
        self.reason = reason
    }
    public var description: String { "\(parameter): \(reason)" }
}

/// The query string of `GET /launch-ad`, read into the launch request that `launch.query` would make of the same
/// params, as strictly: `app`, `platform`, `appVersion` and `deviceId` required; `region`, `locale`,
/// `screen=WxH`, `launchType`, `backgroundSeconds` and `cached=h1,h2` optional; nothing else, nothing twice.
public enum LaunchAdQuery {
    /// The parameters: `launch.query`'s params, by the names they are declared with.
    public static let parameters = Set(LaunchQueryParams.CodingKeys.allCases.map(\.stringValue))
    /// The parameters a request must give (a device id too, which `launch.query` leaves optional).
    static let required: [LaunchQueryParams.CodingKeys] = [.app, .platform, .appVersion, .deviceId]

    /// The request of `query` (the text after `?`, without it).
    public static func request(_ query: Substring) throws(LaunchAdQueryError) -> LaunchRequest {
        var values: [String: String] = [:]
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            let (rawName, rawValue) = pair.firstIndex(of: "=").map { (pair[..<$0], pair[pair.index(after: $0)...]) } ?? (pair, "")
            guard let name = decode(rawName), parameters.contains(name) else {
                throw LaunchAdQueryError(decode(rawName) ?? String(rawName), "is not a parameter of /launch-ad")
            }
            guard values[name] == nil else { throw LaunchAdQueryError(name, "is given more than once") }
            guard let value = decode(rawValue) else { throw LaunchAdQueryError(name, "is not valid percent-encoded UTF-8") }
            values[name] = value
        }
        for key in required where values[key.stringValue] == nil {
            throw LaunchAdQueryError(key.stringValue, "is required")
        }
        var screen: LaunchQueryParams.Screen?
        if let text = values["screen"] {
            let sides = text.split(separator: "x", omittingEmptySubsequences: false)
            guard sides.count == 2, let width = Int(sides[0]), let height = Int(sides[1]) else {
                throw LaunchAdQueryError("screen", "must be WIDTHxHEIGHT, such as 1179x2556")
            }
            screen = LaunchQueryParams.Screen(width: width, height: height)
        }
        var launchType: LaunchType?
        if let text = values["launchType"] {
            guard let type = LaunchType(rawValue: text) else { throw LaunchAdQueryError("launchType", "must be cold or hot") }
            launchType = type
        }
        var backgroundSeconds: Int?
        if let text = values["backgroundSeconds"] {
            guard let seconds = Int(text) else { throw LaunchAdQueryError("backgroundSeconds", "must be a whole number of seconds") }
            backgroundSeconds = seconds
        }
        let cached = values["cached"].map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        let params = LaunchQueryParams(app: values["app"]!, platform: values["platform"]!, appVersion: values["appVersion"]!,
                                       region: values["region"], locale: values["locale"], deviceId: values["deviceId"],
                                       screen: screen, launchType: launchType, backgroundSeconds: backgroundSeconds, cached: cached)
        do {
            return try params.validated()
        } catch {
            // The same rules as launch.query's, named by the query's parameters (`screen` for its sides).
            guard case .object(let data)? = error.data, case .string(let field)? = data["field"], case .string(let reason)? = data["reason"]
            else { throw LaunchAdQueryError("query", error.message) }
            let parameter = field.hasPrefix("screen") ? "screen" : field.hasPrefix("cached") ? "cached" : field
            throw LaunchAdQueryError(parameter, field == parameter ? reason : "\(field) \(reason)")
        }
    }

    /// A name or value of a query string: `+` is a space, `%XX` a byte; `nil` when that is not UTF-8.
    static func decode(_ text: Substring) -> String? {
        guard text.contains(where: { $0 == "%" || $0 == "+" }) else { return String(text) }
        return text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }
}
