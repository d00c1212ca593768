import JSONRPC
import LaunchAdDomain

/// How both engines keep an app in its log: its JSON, as the wire has it.
enum AppJSON {
    static func encode(_ app: AppSettings?) throws -> String? {
        try app.map { String(decoding: try JSONValueEncoder().encodeJSON($0), as: UTF8.self) }
    }

    static func decode(_ body: String) throws -> AppSettings {
        try JSONValueDecoder(rejectUnknownKeys: false).decode(AppSettings.self, fromJSON: Array(body.utf8))
    }

    /// The app `patch` makes of `stored` (its id checked by the caller), checked; stamped `now` when it differs from
    /// `stored` (`stored` itself when it does not: nothing to write). An app with no row yet must be given its market
    /// (the one field a patch cannot leave to a default: it decides which rules its campaigns keep). `newLogo` is the
    /// logo the caller must find among the uploaded creatives (refusing with ``logoNotUploaded``): one that `stored`
    /// did not already have.
    static func merge(_ stored: AppSettings?, _ patch: AppPatch, now: Timestamp) throws -> (app: AppSettings, newLogo: String?) {
        var next: AppSettings
        do throws(FieldError) {
            if stored == nil, patch.market == nil {
                throw FieldError("market", "is required when an app is first set (cn, eu or global)")
            }
            next = try (stored ?? AppSettings(app: patch.app)).merging(patch)
        } catch {
            throw StoreError.field(error)
        }
        let newLogo = next.logo.flatMap { $0 == stored?.logo ? nil : $0 }
        // Nothing changes (a retried call, say): the app as stored, and nothing for the caller to write or log.
        var unchanged = next
        unchanged.updatedAt = stored?.updatedAt
        if let stored, unchanged == stored { return (stored, nil) }
        next.updatedAt = now
        return (next, newLogo)
    }

    /// A logo ``merge(_:_:now:)`` names that is not an uploaded creative.
    static let logoNotUploaded = StoreError.field(FieldError("logo", "is not an uploaded creative"))

    /// The market of `app` from its row's `market` column: `global` when it has no row; a value this campaignd does
    /// not know (written by a newer one, or by hand) refuses the campaign write rather than dropping the market's
    /// rules.
    static func market(stored raw: String?, app: String) throws -> Market {
        guard let raw else { return .default }
        guard let market = Market(rawValue: raw) else {
            throw StoreError.field(FieldError("app", "is in the market \"\(raw)\", which this campaignd does not know; its campaigns cannot be written until app.set gives it cn, eu or global"))
        }
        return market
    }
}
