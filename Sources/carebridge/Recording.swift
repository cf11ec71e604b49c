import ArgumentParser

struct Recording: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Work with recorded sessions (Recordings/*.jsonl).",
        discussion: """
            Examples:
              carebridge recording redact session.jsonl --out shared.jsonl
            """,
        subcommands: [RecordingRedact.self]
    )
}
