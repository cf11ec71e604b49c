import ArgumentParser
import CareStore

/// Who a new user of a care app is, as `users add` and `hub users add` take it: the login name, the name shown,
/// the role, the patients the user may see and where the password comes from (never the command line).
struct NewUserOptions: ParsableArguments {
    @Argument(help: "The login name (letters, digits, . _ - @).")
    var id: String

    @Option(name: .long, help: "The name shown to people.")
    var name: String

    @Option(name: .long, help: "patient, caregiver, clinician or admin.")
    var role: CareUser.Role

    @Option(
        name: .customLong("sees"),
        help: ArgumentHelp("A patient this user may see (repeatable).", valueName: "patient")
    )
    var patients: [String] = []

    @OptionGroup var passwordSource: PasswordFileOption

    /// Warns about a user who would see nobody, then reads the password (``Users/readPassword(file:)``).
    func password() throws -> String {
        if role != .admin, patients.isEmpty {
            Output.error("warning: \(id) is linked to no patient and will see nobody; link it to a patient")
        }
        return try passwordSource.read()
    }
}
