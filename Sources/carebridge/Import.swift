import ArgumentParser

struct Import: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Turn captures from other tools into recordings (Recordings/*.jsonl).",
        subcommands: [ImportBTSnoop.self]
    )
}
