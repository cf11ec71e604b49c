import ArgumentParser
import BridgeFoundation

/// "Did you mean" for a mistyped subcommand (``NameSuggestion`` scores the names).
enum CommandSuggestion {
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
            return (stack, argument, NameSuggestion.closest(to: argument, in: subcommands.map(name(of:))))
        }
        return nil
    }

    /// A subcommand's name as typed: its configured name, else the type name in kebab case.
    static func name(of command: any ParsableCommand.Type) -> String {
        command._commandName
    }
}
