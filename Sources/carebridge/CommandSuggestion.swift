import ArgumentParser

/// "Did you mean": the closest of a set of names to a mistyped one.
enum CommandSuggestion {
    /// The name in `names` closest to `typed` (edit distance at most a third of its length, at least 1, or
    /// `typed` a prefix of exactly one name); nil when none is close.
    static func closest(to typed: String, in names: [String]) -> String? {
        let key = typed.lowercased()
        let prefixed = names.filter { $0.lowercased().hasPrefix(key) }
        if key.count >= 2, prefixed.count == 1 { return prefixed[0] }
        let limit = max(1, key.count / 3)
        let scored = names.map { ($0, distance(key, $0.lowercased())) }.filter { $0.1 <= limit }
        return scored.min { $0.1 < $1.1 }?.0
    }

    /// Levenshtein distance with adjacent transpositions counted as one edit (`evnets` → `events`).
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var table = Array(repeating: Array(repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
                }
            }
        }
        return table[a.count][b.count]
    }

    /// For arguments that failed to parse: the first word that is not a subcommand where one was expected,
    /// with the command it was given to and the closest subcommand name.
    static func unknownSubcommand(
        in arguments: [String],
        root: any ParsableCommand.Type
    ) -> (command: [any ParsableCommand.Type], typed: String, suggestion: String?)? {
        // Only the word right after a command that has subcommands is taken for a subcommand: later words may be
        // option values or arguments.
        var stack: [any ParsableCommand.Type] = [root]
        for argument in arguments {
            let current = stack[stack.count - 1]
            let subcommands = current.configuration.subcommands
            guard !subcommands.isEmpty, !argument.hasPrefix("-"), argument != "help" else { return nil }
            if let next = subcommands.first(where: {
                name(of: $0) == argument || $0.configuration.aliases.contains(argument)
            }) {
                stack.append(next)
                continue
            }
            return (stack, argument, closest(to: argument, in: subcommands.map(name(of:))))
        }
        return nil
    }

    /// A subcommand's name as typed: its configured name, else the type name in kebab case.
    static func name(of command: any ParsableCommand.Type) -> String {
        command._commandName
    }
}
