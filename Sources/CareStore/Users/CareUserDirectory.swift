public import Foundation

/// The care app's users and their sessions, wherever they are kept: a bridge's SQLite store (``CareStore``) or
/// the hub's PostgreSQL. Sign-in, sessions, CSRF and throttling (CareWeb) use only this, so both engines share
/// them; who may see a patient is ``CareUser/maySee(patientID:)``, the same for both.
public protocol CareUserDirectory: Sendable {
    /// Adds a user with a password hash made by the caller (the store never sees a password).
    func addUser(_ user: CareUser, passwordHash: String, at now: Date) async throws
    /// Whether there is any user.
    func hasUsers() async throws -> Bool
    /// The user with this id and the password hash to check a login against; nil when there is none.
    func credentials(userID: String) async throws -> (user: CareUser, passwordHash: String)?
    /// Starts a session for the user; the caller keeps the token, the store its hash.
    func startSession(userID: String, tokenHash: Data, csrfToken: String, at now: Date, expires: Date) async throws
    /// The live session with this token hash, its expiry moved to `extendTo` when that is later (never past
    /// `limit` after it started); nil when there is none or it has expired.
    func session(tokenHash: Data, at now: Date, extendTo: Date, limit: TimeInterval) async throws -> AppSession?
    /// Ends one session (signing out).
    func endSession(tokenHash: Data) async throws
}
