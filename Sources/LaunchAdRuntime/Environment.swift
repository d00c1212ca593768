import Foundation

/// Reads a setting's environment variable (each flag has one, such as `CAMPAIGND_DATA_DIR`).
public enum Environment {
    public static func value(_ name: String) -> String? {
        guard let value = ProcessInfo.processInfo.environment[name], !value.isEmpty else { return nil }
        return value
    }

    public static func string(_ name: String, default fallback: String) -> String {
        value(name) ?? fallback
    }

    public static func flag(_ name: String) -> Bool {
        guard let value = value(name)?.lowercased() else { return false }
        return ["1", "true", "yes", "on"].contains(value)
    }
}
