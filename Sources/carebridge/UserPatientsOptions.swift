import ArgumentParser

/// A user and the patients to link, as `users link`, `hub users link` and `hub users unlink` take them.
struct UserPatientsOptions: ParsableArguments {
    @Argument(help: "The login name.")
    var id: String

    @Option(
        name: .customLong("sees"),
        help: ArgumentHelp("A patient this user may see (repeatable).", valueName: "patient")
    )
    var patients: [String] = []

    /// Refuses an empty list, for the commands that add or remove patients (`users link` replaces the list, so an
    /// empty one is allowed there).
    func requirePatients() throws {
        if patients.isEmpty { throw ValidationError("say which patients with --sees PATIENT (repeatable)") }
    }
}
