import ArgumentParser

/// Where a new password comes from, as every command that sets one takes it: a file, standard input (`-`) or a
/// prompt without echo; never the command line.
struct PasswordFileOption: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp("Read the password from this file (- for standard input).", valueName: "file")
    )
    var passwordFile: String?

    /// The new password (``Users/readPassword(file:)``).
    func read() throws -> String {
        try Users.readPassword(file: passwordFile)
    }
}
