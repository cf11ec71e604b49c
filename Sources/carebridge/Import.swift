import ArgumentParser

struct Import: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Turn captures from other tools into recordings (Recordings/*.jsonl).",
        discussion: """
            Examples:
              carebridge import btsnoop btsnoop_hci.log --out scale.jsonl
            """,
        subcommands: [ImportBTSnoop.self]
    )
}
