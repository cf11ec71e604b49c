/// Why the hub refused or failed: a closed set of codes, a message that names what and whom, and the cause.
///
/// Messages never carry a bridge's token or the database password (the token is only ever hashed; the password is
/// read from a file and given to the driver, never formatted).
public struct HubError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, as the sync endpoint answers it.
    public enum Code: Sendable, Hashable {
        /// The batch is not what the protocol says (HTTP 400).
        case malformed
        /// No token, or a token the hub does not know (HTTP 401).
        case unauthenticated
        /// The bridge wrote for a patient it is not enrolled for (HTTP 403); nothing of the batch was stored.
        case forbidden
        /// A name or an argument the hub refuses (enrolment).
        case invalid
        /// PostgreSQL failed or is unreachable (HTTP 503: the bridge retries).
        case database
        /// The hub's configuration (the database address, the password file).
        case configuration
    }

    public var code: Code
    public var message: String
    /// The underlying error (a PostgreSQL error); its description is the driver's, which hides the query text.
    public var cause: (any Error & Sendable)?

    public init(_ code: Code, _ message: String, cause: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.cause = cause
    }

    public var description: String {
        guard let cause else { return message }
        return "\(message): \(String(reflecting: cause))"
    }
}
