import ArgumentParser
import Foundation
import Locking

/// A daemon's environment variables, read as its flags: each option's help ends with its variable in brackets
/// (`[CAMPAIGND_DATA_DIR]`), the one place the variable is named, and a variable set (not empty) stands for its flag
/// given before the command line, so a flag on the command line wins.
public enum DaemonEnvironment {
    /// What each daemon's `--help` says of its variables, in the words of ``arguments(_:_:environment:)``.
    public static let precedence = "Every option can also be set with the environment variable in brackets; a flag on the command line wins over its variable."

    /// One option or flag of a type, and the variable its help names.
    public struct Variable: Equatable, Sendable {
        public let flag: String
        public let name: String
        /// A flag without a value (`--insecure`): its variable turns it on with 1, true, yes or on.
        public let isSwitch: Bool
    }

    /// `arguments` preceded by a `--flag=value` (`--flag` for a switch) for each of `type`'s variables set in
    /// `environment`. The value is joined to its flag so that one starting with `-` stays a value.
    public static func arguments<T: ParsableArguments>(_ type: T.Type, _ arguments: some Sequence<String>,
                                                       environment: [String: String] = ProcessInfo.processInfo.environment) -> [String] {
        var given: [String] = []
        for variable in variables(of: type) {
            guard let value = environment[variable.name], !value.isEmpty else { continue }
            if !variable.isSwitch {
                given.append("--\(variable.flag)=\(value)")
            } else if ["1", "true", "yes", "on"].contains(value.lowercased()) {
                given.append("--\(variable.flag)")
            }
        }
        return given + arguments
    }

    /// Every option and flag of `type` whose help names a variable, read from ArgumentParser's description of the type
    /// (once a type: the description is a whole help text).
    public static func variables<T: ParsableArguments>(of type: T.Type) -> [Variable] {
        let key = ObjectIdentifier(type)
        if let known = known.withLock({ $0[key] }) { return known }
        let found = described(type)
        known.withLock { $0[key] = found }
        return found
    }

    private static let known = Locked<[ObjectIdentifier: [Variable]]>([:])

    private static func described<T: ParsableArguments>(_ type: T.Type) -> [Variable] {
        // A description that no longer reads (another ArgumentParser) must not leave every variable silently unread.
        guard let description = try? JSONDecoder().decode(Description.self, from: Data(type._dumpHelp().utf8)) else {
            preconditionFailure("cannot read \(type)'s options from ArgumentParser's description: their environment variables would go unread")
        }
        return (description.command.arguments ?? []).compactMap { argument in
            guard let flag = argument.names?.first(where: { $0.kind == "long" })?.name,
                  let name = variableName(in: argument.abstract ?? "") else { return nil }
            return Variable(flag: flag, name: name, isSwitch: argument.kind == "flag")
        }
    }

    /// The last `[NAME]` of a help text, NAME in capitals, digits and `_`.
    static func variableName(in help: String) -> String? {
        guard help.hasSuffix("]"), let open = help.lastIndex(of: "[") else { return nil }
        let name = help[help.index(after: open)..<help.index(before: help.endIndex)]
        let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
        guard !name.isEmpty, name.allSatisfy({ allowed.contains($0) }) else { return nil }
        return String(name)
    }

    /// The part of ArgumentParser's `_dumpHelp()` JSON read here.
    private struct Description: Decodable {
        struct Command: Decodable { let arguments: [Argument]? }
        struct Argument: Decodable {
            struct Name: Decodable { let kind: String; let name: String }
            let kind: String
            let names: [Name]?
            let abstract: String?
        }
        let command: Command
    }
}

extension ParsableArguments {
    /// Parses `arguments` as a daemon does: `environment`'s variables first, the command line over them.
    public static func parse(_ arguments: [String], environment: [String: String]) throws -> Self {
        try parse(DaemonEnvironment.arguments(Self.self, arguments, environment: environment))
    }
}
