import ArgumentParser
import BridgeFoundation
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
            Passwords come from a file (--password-file; `-` reads standard input) or a prompt, never from the \
            command line; the hub keeps a bcrypt hash. A user sees only the patients linked to it (an admin sees \
            every patient); a patient must be enrolled on some bridge first (`carebridge hub enrol`).

            Examples:
              carebridge hub users add nina --name "Nina Park" \\
                  --role clinician --sees alice \\
                  --database postgres://carehub@db.internal/carehub
              carebridge hub users link nina --sees bob \\
                  --database postgres://carehub@db.internal/carehub
              carebridge hub users list --json \\
                  --database postgres://carehub@db.internal/carehub
            """,
        subcommands: [HubUsersList.self, HubUsersAdd.self, HubUsersLink.self, HubUsersUnlink.self, HubUsersPasswd.self]
    )
}

/// `carebridge hub users list`: the dashboard's users and the patients each sees.
struct HubUsersList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the hub dashboard's users and the patients each sees.",
        discussion: """
            JSON (--json): [{"id", "name", "role", "patients", "created", "timeZone" (null: the hub's zone)}], as \
            `carebridge users list --json` prints a bridge's.

            Examples:
              carebridge hub users list --json \\
                  --database postgres://carehub@db.internal/carehub
            """
    )

    @OptionGroup var database: HubDatabaseOptions

    @Flag(name: .long, help: "Print JSON for scripts.")
    var json = false

    func run() async throws {
        let users = try await database.withStore(logger: CLILogging.logger) { store in try await store.users() }
        if json {
            print(JSONValue.array(users.map(Users.json)).serialized(pretty: true))
        } else if users.isEmpty {
            print("No users. Add one with: carebridge hub users add NAME --name \"Full Name\" --role clinician")
        } else {
            for user in users { print(Users.line(user, defaultZone: "hub's zone")) }
        }
    }
}

/// `carebridge hub users link`: more patients for a user of the dashboard.
struct HubUsersLink: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "link",
        abstract: "Link a dashboard user to more patients (those linked already stay).",
        discussion: """
            A patient must be enrolled on some bridge (`carebridge hub enrol`).

            Examples:
              carebridge hub users link nina --sees bob --sees carol \\
                  --database postgres://carehub@db.internal/carehub
            """
    )

    @OptionGroup var database: HubDatabaseOptions
    @OptionGroup var link: UserPatientsOptions

    func validate() throws {
        try link.requirePatients()
    }

    func run() async throws {
        let seen = try await database.withStore(logger: CLILogging.logger) { store in
            try await store.link(userID: link.id, to: link.patients)
        }
        print(Users.sees(link.id, seen))
    }
}

/// `carebridge hub users unlink`: patients a user of the dashboard no longer sees.
struct HubUsersUnlink: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unlink",
        abstract: "Unlink a dashboard user from patients; the user's next page no longer shows them.",
        discussion: """
            Examples:
              carebridge hub users unlink nina --sees bob \\
                  --database postgres://carehub@db.internal/carehub
            """
    )

    @OptionGroup var database: HubDatabaseOptions
    @OptionGroup var link: UserPatientsOptions

    func validate() throws {
        try link.requirePatients()
    }

    func run() async throws {
        let seen = try await database.withStore(logger: CLILogging.logger) { store in
            try await store.unlink(userID: link.id, from: link.patients)
        }
        print(Users.sees(link.id, seen))
    }
}

/// `carebridge hub users passwd`: a new password for a user of the dashboard.
struct HubUsersPasswd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "passwd",
        abstract: "Set a dashboard user's password (from a file or a prompt); the user's open sessions end.",
        discussion: """
            Examples:
              carebridge hub users passwd nina --password-file - \\
                  --database postgres://carehub@db.internal/carehub
            """
    )

    @OptionGroup var database: HubDatabaseOptions

    @Argument(help: "The login name.")
    var id: String

    @OptionGroup var passwordSource: PasswordFileOption

    func run() async throws {
        let password = try passwordSource.read()
        try await database.withStore(logger: CLILogging.logger) { store in
            try await store.setPasswordHash(userID: id, PasswordHasher().hash(password))
        }
        print("Changed the password of \(id); their open sessions on the hub have ended.")
    }
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
