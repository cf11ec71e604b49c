import ArgumentParser

struct Store: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show what the store holds, apply the retention policy, check the file for damage.",
        discussion: """
            `carebridge store stats` shows the file's size by table and by quantity type and what the retention \
            policy would free; `carebridge store vacuum` applies the policy (aggregates, then deletes raw samples \
            past their horizon) and compacts the file; `carebridge store check` looks for damage (after a disk \
            or power failure) and says what to do. The policy is the plan file's "retention" key, stored by \
            `carebridge plan apply`; without one every sample is kept raw forever.

            Examples:
              carebridge store stats
              carebridge store vacuum --dry-run
              carebridge store check
            """,
        subcommands: [StoreStats.self, StoreVacuum.self, StoreCheckCommand.self]
    )
}
