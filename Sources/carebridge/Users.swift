public import ArgumentParser
import BridgeFoundation
import CareStore
import CareWeb
import Foundation

#if canImport(Glibc)
import Glibc
#endif

struct Users: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Add, list and change the people who sign in to the care app.",
        discussion: """
            Roles: patient (their own day), caregiver (family who follow a patient), clinician (the care team's \
            patient list) and admin (every patient). Every role but admin sees only the patients it is linked to \
            (--sees, repeatable). Passwords come from a file (--password-file; `-` reads standard input) or a \
            prompt, never from the command line; the store keeps a bcrypt hash. The app shows each user's times \
            in their time zone (--time-zone on add, `set-zone`, or the app's Settings page); without one, in the \
            bridge's zone. The days stay the patient's plan days.

            Examples:
              carebridge users add anna --name "Anna Weber" --role patient --sees anna \\
                  --password-file pw.txt
              carebridge users add nurse1 --name "Sam Ortiz" --role clinician \\
                  --sees bed-1 --sees bed-2
              carebridge users link nurse1 --sees bed-1 --sees bed-3
              carebridge users set-zone anna-daughter America/New_York
              carebridge users passwd anna --password-file -
              carebridge users list --json
            """,
        subcommands: [
            UsersList.self, UsersAdd.self, UsersPasswd.self, UsersLink.self, UsersSetZone.self, UsersRevoke.self,
            UsersRemove.self,
        ],
        defaultSubcommand: UsersList.self
    )

    /// A new password from the file (`-`: standard input, first line) or a prompt without echo.
    static func readPassword(file: String?) throws -> String {
        let password: String
        if let file {
            let text: String
            if file == "-" {
                text = readLine(strippingNewline: true) ?? ""
            } else {
                guard let data = FileManager.default.contents(atPath: file),
                    let read = String(data: data, encoding: .utf8)
                else {
                    throw ValidationError("--password-file \(file): cannot read it (missing, unreadable or not UTF-8)")
                }
                SecretFile.warnIfShared(file, option: "--password-file")
                text = String(read.split(separator: "\n", omittingEmptySubsequences: false).first ?? "")
            }
            password = text
        } else {
            guard isatty(STDIN_FILENO) != 0 else {
                throw ValidationError("no terminal to ask for the password: give --password-file FILE (or - for stdin)")
            }
            guard let first = getpass("New password: ").map({ String(cString: $0) }),
                let second = getpass("Again: ").map({ String(cString: $0) })
            else { throw ValidationError("no password given") }
            guard first == second else { throw ValidationError("the two passwords differ") }
            password = first
        }
        if let problem = PasswordHasher.problem(with: password) { throw ValidationError(problem) }
        return password
    }

    static func json(_ user: CareUser) -> JSONValue {
        .object([
            "id": .string(user.id), "name": .string(user.displayName), "role": .string(user.role.rawValue),
            "patients": .array(user.patientIDs.map(JSONValue.string)),
            "created": .string(ISO8601DateFormatter().string(from: user.createdDate)),
            "timeZone": user.timeZone.map { .string($0.identifier) } ?? .null,
        ])
    }

    /// One user as `users list` and `hub users list` print it: id, name, role, patients, zone.
    static func line(_ user: CareUser, defaultZone: String = "bridge's zone") -> String {
        let patients = user.role == .admin ? "all patients" : user.patientIDs.joined(separator: ", ")
        let zone = user.timeZone?.identifier ?? defaultZone
        return
            "\(user.id)  \(user.displayName)  \(user.role.rawValue)  \(patients.isEmpty ? "no patients" : patients)  \(zone)"
    }

    /// What a user sees after a link changed.
    static func sees(_ id: String, _ patients: [String]) -> String {
        patients.isEmpty ? "\(id) now sees no patient." : "\(id) now sees \(patients.joined(separator: ", "))."
    }

    /// The zone `name` names, or a usage error saying which option held what.
    static func zone(_ name: String, option: String) throws -> TimeZone {
        do {
            return try CareUser.zone(named: name)
        } catch {
            throw ValidationError("\(option): \(error.message); `carebridge users set-zone --help` shows more")
        }
    }
}

extension CareUser.Role: ExpressibleByArgument {}

struct UsersList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the users (the default of `carebridge users`).",
        discussion:
            "JSON (--json): [{\"id\", \"name\", \"role\", \"patients\", \"created\", \"timeZone\" (null: the bridge's zone)}].\n\nExamples:\n  carebridge users list --json\n\n\(StoreExit.help)"
    )

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var global: GlobalOptions

    @Flag(name: .long, help: "Print JSON for scripts.")
    var json = false

    func run() async throws {
        let store = try await storeOptions.open(zone: try global.resolvedTimeZone(), mode: .existing, patients: .any)
        do {
            let users = try await store.users()
            if json {
                print(JSONValue.array(users.map(Users.json)).serialized(pretty: true))
            } else if users.isEmpty {
                print("No users. Add one with: carebridge users add NAME --name \"Full Name\" --role admin")
            } else {
                for user in users { print(Users.line(user)) }
            }
        } catch {
            throw StoreExit.fail(error)
        }
    }
}

struct UsersAdd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Add a user who can sign in to the care app.",
        discussion:
            "Examples:\n  carebridge users add anna --name \"Anna Weber\" --role patient \\\n      --sees anna --password-file pw.txt\n\n\(StoreExit.help)"
    )

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var user: NewUserOptions

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The zone the app shows this user's times in (IANA name, e.g. America/New_York).",
            discussion: "Default: the bridge's zone. The user can change it on the app's Settings page.",
            valueName: "zone"
        )
    )
    var timeZone: String?

    func validate() throws {
        if let timeZone { _ = try Users.zone(timeZone, option: "--time-zone") }
    }

    func run() async throws {
        let store = try await storeOptions.open(zone: try GlobalOptions.resolvedTimeZone(option: nil), patients: .any)
        let zone = try timeZone.map { try Users.zone($0, option: "--time-zone") }
        let password = try user.password()
        try await StoreExit.attempt {
            let added = CareUser(
                id: user.id,
                displayName: user.name,
                role: user.role,
                patientIDs: user.patients,
                timeZone: zone
            )
            try await store.addUser(added, passwordHash: PasswordHasher().hash(password))
            print(
                "Added \(user.role.rawValue) \(user.id) (\(user.name)), times in \(zone?.identifier ?? "the bridge's zone")."
            )
        }
    }
}

struct UsersPasswd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "passwd",
        abstract: "Set a user's password; the user's open sessions end.",
        discussion: "Examples:\n  carebridge users passwd anna --password-file -\n\n\(StoreExit.help)"
    )

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var global: GlobalOptions

    @Argument(help: "The login name.")
    var id: String

    @OptionGroup var passwordSource: PasswordFileOption

    func run() async throws {
        let store = try await storeOptions.open(zone: try global.resolvedTimeZone(), mode: .existing, patients: .any)
        let password = try passwordSource.read()
        try await StoreExit.attempt {
            try await store.setPasswordHash(userID: id, PasswordHasher().hash(password))
            print("Changed the password of \(id); their open sessions have ended.")
        }
    }
}

struct UsersLink: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "link",
        abstract: "Set the patients a user may see (replaces the list).",
        discussion: "Examples:\n  carebridge users link nurse1 --sees bed-1 --sees bed-3\n\n\(StoreExit.help)"
    )

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var global: GlobalOptions

    @OptionGroup var link: UserPatientsOptions

    func run() async throws {
        let store = try await storeOptions.open(zone: try global.resolvedTimeZone(), mode: .existing, patients: .any)
        try await StoreExit.attempt {
            try await store.setPatients(userID: link.id, link.patients)
            print(Users.sees(link.id, link.patients))
        }
    }
}

struct UsersSetZone: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set-zone",
        abstract: "Set the time zone the care app shows a user's times in.",
        discussion: """
            The days stay the patient's plan days; only the times are shown in the user's zone (and the plan's \
            beside them when the two differ). --bridge goes back to the bridge's zone.

            Examples:
              carebridge users set-zone anna-daughter America/New_York
              carebridge users set-zone anna-daughter --bridge

            \(StoreExit.help)
            """
    )

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var global: GlobalOptions

    @Argument(help: "The login name.")
    var id: String

    @Argument(help: ArgumentHelp("The IANA zone name (Europe/Berlin, America/New_York, UTC).", valueName: "zone"))
    var zone: String?

    @Flag(name: .long, help: "Show the user's times in the bridge's zone again.")
    var bridge = false

    func validate() throws {
        switch (zone, bridge) {
        case (nil, false): throw ValidationError("give a zone (such as Europe/Berlin) or --bridge")
        case (.some, true): throw ValidationError("give a zone or --bridge, not both")
        case (.some(let zone), false): _ = try Users.zone(zone, option: "zone")
        case (nil, true): break
        }
    }

    func run() async throws {
        let store = try await storeOptions.open(zone: try global.resolvedTimeZone(), mode: .existing, patients: .any)
        let chosen = try zone.map { try Users.zone($0, option: "zone") }
        try await StoreExit.attempt {
            try await store.setTimeZone(userID: id, chosen)
            print("\(id) now sees times in \(chosen?.identifier ?? "the bridge's zone").")
        }
    }
}

struct UsersRevoke: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "revoke",
        abstract: "End every open session of a user (a lost phone); the account stays.",
        discussion: "Examples:\n  carebridge users revoke anna\n\n\(StoreExit.help)"
    )

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var global: GlobalOptions

    @Argument(help: "The login name.")
    var id: String

    func run() async throws {
        let store = try await storeOptions.open(zone: try global.resolvedTimeZone(), mode: .existing, patients: .any)
        try await StoreExit.attempt {
            let ended = try await store.endSessions(userID: id)
            print("Ended \(ended) session\(ended == 1 ? "" : "s") of \(id).")
        }
    }
}

struct UsersRemove: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove",
        abstract: "Remove a user: they can no longer sign in. What they recorded stays, with their name as author.",
        discussion: "Examples:\n  carebridge users remove anna\n\n\(StoreExit.help)"
    )

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var global: GlobalOptions

    @Argument(help: "The login name.")
    var id: String

    func run() async throws {
        let store = try await storeOptions.open(zone: try global.resolvedTimeZone(), mode: .existing, patients: .any)
        try await StoreExit.attempt {
            try await store.removeUser(id: id)
            print("Removed \(id); their sessions have ended. Outcomes they recorded keep \(id) as author.")
        }
    }
}
