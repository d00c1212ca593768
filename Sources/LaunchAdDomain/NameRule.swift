import JSONRPC

/// A name that comes in from outside under one rule (``AppID``, ``Region``): the check, the words errors say it in
/// and the schema's pattern, declared once by the conforming type; the refusal and the schema are derived here, so
/// every entry point words the rule and states it alike.
public protocol NameRule {
    /// What an error says the name must be.
    static var rule: String { get }
    /// The rule as a schema's pattern (ECMA-262, as OpenRPC has it).
    static var pattern: String { get }
    /// Whether `name` keeps the rule.
    static func isValid(_ name: String) -> Bool
}

extension NameRule {
    /// Checks a name given in `field` of a call's params.
    public static func validate(_ name: String, field: String) throws(JSONRPCError) {
        guard isValid(name) else { throw JSONRPCError.invalidParams(field: field, "must be \(rule)") }
    }

    /// The name's schema: the rule as its pattern.
    public static func schema(_ description: String? = nil) -> JSONSchema {
        .string(description, pattern: pattern)
    }
}
