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

    /// The app `patch` makes of `stored` (its id checked by the caller) (the defaults when never set), checked, its logo among the uploaded
    /// creatives; stamped `now` when it differs from `stored` (`stored` itself when it does not: nothing to write).
    static func merge(_ stored: AppSettings?, _ patch: AppPatch, now: Timestamp, creativeExists: (String) throws -> Bool) throws -> AppSettings {
        var next: AppSettings
        do throws(FieldError) {
            next = try (stored ?? AppSettings(app: patch.app)).merging(patch)
        } catch {
            throw StoreError.field(error)
        }
        if let logo = next.logo, logo != stored?.logo, try !creativeExists(logo) {
            throw StoreError.field(FieldError("logo", "is not an uploaded creative"))
        }
        // Nothing changes (a retried call, say): the app as stored, and nothing for the caller to write or log.
        var unchanged = next
        unchanged.updatedAt = stored?.updatedAt
        if let stored, unchanged == stored { return stored }
        next.updatedAt = now
        return next
    }
}
