extension ADCtl {
    /// Flags every command reads that take a value (`--endpoint E` or `--endpoint=E`).
    static let globalValueFlags: Set<String> = ["--endpoint", "--timeout", "--keys-dir", "--server-key"]
    /// Flags every command reads that take none.
    static let globalFlags: Set<String> = ["--json"]
    /// Words that name a command group, after which another command word follows.
    static let commandWords: Set<String> = ["creative", "campaign", "app"]

    /// DESIGN puts the connection flags before the command (`adctl --endpoint E --json campaign list`): move them
    /// after it, where each command reads them.
    ///
    /// Only the global flags at the front move; the first argument that is not one ends them, and is left where it
    /// is with everything after it.
    static func reorderingGlobalFlags(_ arguments: [String]) -> [String] {
        var global: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            let name = argument.split(separator: "=", maxSplits: 1).first.map(String.init) ?? argument
            if globalFlags.contains(argument) {
                global.append(argument)
                index += 1
            } else if globalValueFlags.contains(name) {
                global.append(argument)
                if !argument.contains("="), index + 1 < arguments.count {
                    global.append(arguments[index + 1])
                    index += 1
                }
                index += 1
            } else {
                break
            }
        }
        // The command's words, then the global flags, then the rest.
        var rest = Array(arguments[index...])
        var words: [String] = []
        while let first = rest.first, !first.hasPrefix("-") {
            words.append(first)
            rest.removeFirst()
            if !Self.commandWords.contains(first) { break }
        }
        return words + global + rest
    }
}
