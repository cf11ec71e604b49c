import ArgumentParser

struct Plan: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Apply a care plan file to the store, or show the current plan.",
        discussion: """
            The plan format is described in the README ("Writing a care plan") and \
            docs/reference.md ("The care-plan store").

            Examples:
              carebridge plan apply plan.json
              carebridge plan show --json > current-plan.json
            """,
        subcommands: [PlanApply.self, PlanShow.self]
    )
}
