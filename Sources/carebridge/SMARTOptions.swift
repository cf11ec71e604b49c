import ArgumentParser

/// How a command names and describes its SMART Backend Services options (`fhir push`: `--smart-…`; `run`:
/// `--fhir-smart-…`).
protocol SMARTOptionNames {
    /// The first words of the options (`smart`, `fhir-smart`) and each option's help.
    static var smartOptions: (prefix: String, clientID: String, keyFile: String, tokenURL: String) { get }
}

/// A FHIR server's SMART Backend Services client: its id, its private key's file and the token endpoint.
struct SMARTOptions<Names: SMARTOptionNames>: ParsableArguments {
    @Option(name: .customLong(Self.clientIDOption), help: ArgumentHelp(Names.smartOptions.clientID, valueName: "id"))
    var clientID: String?

    @Option(name: .customLong(Self.keyFileOption), help: ArgumentHelp(Names.smartOptions.keyFile, valueName: "file"))
    var keyFile: String?

    @Option(name: .customLong(Self.tokenURLOption), help: ArgumentHelp(Names.smartOptions.tokenURL, valueName: "url"))
    var tokenURL: String?

    static var clientIDOption: String { "\(Names.smartOptions.prefix)-client-id" }
    static var keyFileOption: String { "\(Names.smartOptions.prefix)-key-file" }
    static var tokenURLOption: String { "\(Names.smartOptions.prefix)-token-url" }

    /// Whether any of the options was given.
    var isGiven: Bool { clientID != nil || keyFile != nil || tokenURL != nil }
}
