import ArgumentParser

struct Recording: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Work with recorded sessions (Recordings/*.jsonl).",
        subcommands: [RecordingRedact.self]
    )
}
