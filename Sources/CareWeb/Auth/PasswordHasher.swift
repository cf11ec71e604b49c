import HummingbirdBcrypt

/// bcrypt through hummingbird-auth: the hash carries its salt and cost, so a later cost change still verifies old
/// hashes.
public struct PasswordHasher: Sendable {
    public var cost: UInt8

    public init(cost: UInt8 = 12) {
        self.cost = cost
    }

    /// Shortest password accepted.
    public static let minimumLength = 10

    /// Why a new password is refused, or nil.
    public static func problem(with password: String) -> String? {
        if password.count < minimumLength { return "a password needs at least \(minimumLength) characters" }
        if password.utf8.count > 72 { return "a password may have at most 72 bytes (bcrypt ignores the rest)" }
        return nil
    }

    public func hash(_ password: String) -> String {
        Bcrypt.hash(password, cost: cost)
    }

    public func verify(_ password: String, hash: String) -> Bool {
        Bcrypt.verify(password, hash: hash)
    }
}
