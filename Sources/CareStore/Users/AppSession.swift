public import Foundation

/// A signed-in browser: found by the SHA-256 of its cookie's token, revocable, with the token every form of the
/// session must carry (CSRF).
public struct AppSession: Sendable, Hashable {
    /// The SHA-256 of the cookie's token (the token itself is never stored).
    public var tokenHash: Data
    public var user: CareUser
    /// The token each form posts back; compared with the form's before any change.
    public var csrfToken: String
    public var createdDate: Date
    public var expiresDate: Date

    public init(tokenHash: Data, user: CareUser, csrfToken: String, createdDate: Date, expiresDate: Date) {
        self.tokenHash = tokenHash
        self.user = user
        self.csrfToken = csrfToken
        self.createdDate = createdDate
        self.expiresDate = expiresDate
    }

    /// The expiry a request moves this session to: `extendTo` (now plus the idle timeout), never past `limit` after
    /// the session started; nil when that is less than a minute later than now (most requests only read).
    public func extendedExpiry(to extendTo: Date, limit: TimeInterval) -> Date? {
        let extended = min(extendTo, createdDate.addingTimeInterval(limit))
        return extended.timeIntervalSince(expiresDate) >= 60 ? extended : nil
    }
}
