import ArgumentParser

/// The options of a one-shot push through an HTTPS outbox channel (`sync push`, `nightscout push`): the receiver's
/// CA file, how long to keep trying, JSON output.
struct UploadPushOptions: ParsableArguments {
    @Option(
        name: .customLong("ca-file"),
        help: ArgumentHelp("PEM certificates to trust for the receiver's HTTPS.", valueName: "file")
    )
    var caFile: String?

    @Option(name: .long, help: ArgumentHelp("Give up after this many seconds (default 60).", valueName: "seconds"))
    var timeout: Double = 60

    @Flag(name: .long, help: "Print JSON for scripts.")
    var json = false

    func validate() throws {
        try NumericOption.checkPositive(timeout, "--timeout", atMost: NumericOption.day)
    }
}
