import Foundation
import JSONRPC
import LaunchAdDomain

/// A parameter of `GET /launch-ad` that is missing, unknown, repeated or wrong: `msg` names it.
public typealias LaunchAdQueryError = QueryParameterError

/// The query string of `GET /launch-ad`, read into the launch request that `launch.query` would make of the same
/// params, as strictly: `app`, `platform`, `appVersion` and `deviceId` required; `region`, `locale`,
/// `screen=WxH`, `launchType`, `backgroundSeconds` and `cached=h1,h2` optional; nothing else, nothing twice.
public enum LaunchAdQuery {
    /// The parameters: `launch.query`'s params, by the names they are declared with.
    public static let parameters = Set(LaunchQueryParams.CodingKeys.allCases.map(\.stringValue))
    /// The parameters a request must give (a device id too, which `launch.query` leaves optional).
    static let required: [LaunchQueryParams.CodingKeys] = [.app, .platform, .appVersion, .deviceId]

    /// The request of `query` (the text after `?`, without it): the params read by their one reader from the
    /// query's text and checked into the request.
    public static func request(_ query: Substring) throws(LaunchAdQueryError) -> LaunchRequest {
        var source = try QueryMembers(query, LaunchQueryParams.fields, required: required, unknown: "is not a parameter of /launch-ad",
                                      decode: decode)
        return try LaunchQueryParams.read(&source, version: AppVersion.init(utf8:), make: LaunchQueryParams.checked(refusal))
    }

    /// A refusal of launch.query's checks, named by the query's parameters (`screen` for its sides, `cached` for its
    /// hashes).
    static func refusal(_ error: JSONRPCError) -> LaunchAdQueryError {
        guard case .object(let data)? = error.data, case .string(let field)? = data["field"], case .string(let reason)? = data["reason"]
        else { return LaunchAdQueryError("query", error.message) }
        let parameter = field.hasPrefix("screen") ? "screen" : field.hasPrefix("cached") ? "cached" : field
        return LaunchAdQueryError(parameter, field == parameter ? reason : "\(field) \(reason)")
    }

    /// A name or value of a query string: `+` is a space, `%XX` a byte; `nil` when that is not UTF-8.
    static func decode(_ text: Substring) -> String? {
        guard text.contains(where: { $0 == "%" || $0 == "+" }) else { return String(text) }
        return text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }
}
