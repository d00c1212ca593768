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
    /// creatives; stamped `now`.
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
        next.updatedAt = now
        return next
    }
}
