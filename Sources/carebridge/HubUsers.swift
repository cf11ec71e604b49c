import ArgumentParser
import CareHub
import CareStore
import CareWeb
import Foundation

/// `carebridge hub users …`: who may sign in to the hub's dashboard, and which patients each sees.
struct HubUsers: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "users",
        abstract: "Manage the people who sign in to the hub's care-team dashboard.",
        discussion: """
            Examples:
              carebridge hub users add nina --name "Nina Park" \\
                  --role clinician --sees alice \\
                  --database postgres://carehub@db.internal/carehub
            """,
        subcommands: [HubUsersAdd.self]
    )
}

/// `carebridge hub users add`: a dashboard user, as `carebridge users add` adds one to a bridge's care app.
struct HubUsersAdd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Add a user who can sign in to the hub's dashboard (the password from a file or a prompt).",
        discussion: """
            The hub keeps the password's bcrypt hash, never the password; it never goes on the command line. A \
            user sees only the patients linked with --sees (an admin sees every patient); a patient must be \
            enrolled on some bridge first (`carebridge hub enrol`).

            Examples:
              carebridge hub users add nina --name "Nina Park" \\
                  --role clinician --sees alice --sees bob \\
                  --database postgres://carehub@db.internal/carehub \\
                  --password-file -
            """
    )

    @OptionGroup var database: HubDatabaseOptions

    @OptionGroup var user: NewUserOptions

    func run() async throws {
        let password = try user.password()
        let added = CareUser(id: user.id, displayName: user.name, role: user.role, patientIDs: user.patients)
        try await database.withStore(logger: CLILogging.logger) { store in
            try await store.addUser(added, passwordHash: PasswordHasher().hash(password), at: Date())
        }
        print("Added \(user.role.rawValue) \(user.id) (\(user.name)) to the hub's dashboard.")
    }
}
