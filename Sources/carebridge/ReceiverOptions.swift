import ArgumentParser

/// A place `run` sends readings to as they are stored (the hub, a Nightscout site, a FHIR server): the command
/// that pushes to it names `run`'s options for it.
protocol Receiver {
    /// `run`'s option naming the receiver's address (`hub`, `nightscout`, `fhir-server`); the first word of it
    /// begins the CA file's option (`hub-ca-file`, `fhir-ca-file`).
    static var receiverOption: String { get }
    static var receiverHelp: String { get }
    /// `run`'s option naming the file that holds the receiver's secret (`hub-token-file`).
    static var secretFileOption: String { get }
    static var secretFileHelp: String { get }
}

/// `run`'s options for one ``Receiver``: its address, its secret's file and the CA file for its HTTPS, named and
/// described by the receiver (`--hub`, `--hub-token-file`, `--hub-ca-file`).
struct ReceiverOptions<R: Receiver>: ParsableArguments {
    @Option(name: .customLong(R.receiverOption), help: ArgumentHelp(R.receiverHelp, valueName: "url"))
    var url: String?

    @Option(name: .customLong(R.secretFileOption), help: ArgumentHelp(R.secretFileHelp, valueName: "file"))
    var secretFile: String?

    @Option(
        name: .customLong(Self.caFileOption),
        help: ArgumentHelp("PEM certificates to trust for --\(R.receiverOption)'s HTTPS.", valueName: "file")
    )
    var caFile: String?

    /// `hub-ca-file`, `fhir-ca-file`.
    static var caFileOption: String { "\(R.receiverOption.prefix { $0 != "-" })-ca-file" }
}
