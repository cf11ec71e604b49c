import ArgumentParser

/// `carebridge hub plan …`: plans the hub owns and sends down to the bridges.
struct HubPlan: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plan",
        abstract: "Put a patient's care plan on the hub; every bridge enrolled for the patient applies it.",
        discussion: """
            Examples:
              carebridge hub plan apply --database postgres://hub@db/hub \\
                --patient ann plan.json
            """,
        subcommands: [HubPlanApply.self]
    )
}
