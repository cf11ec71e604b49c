import CareStore
import Foundation
import Logging
import NIOPosix

extension WebSignIn {
    /// What a user name and password came to.
    enum PasswordCheck {
        /// They match this user.
        case user(CareUser)
        /// Too many wrong passwords: tried again only after this many seconds.
        case throttled(TimeInterval)
        /// They do not match (recorded against the name and the address).
        case wrong
    }

    /// Checks `password` for `username` as the sign-in form does, for the form and for HTTP Basic (calendar
    /// subscriptions): throttled per name and address, the same work for an unknown name (a decoy hash), the hash
    /// compared off the cooperative pool.
    func checkPassword(username: String, password: String, address: String) async throws -> PasswordCheck {
        let now = self.now()
        if let wait = throttle.retryAfter(user: username, address: address, now: now) { return .throttled(wait) }
        let credentials = try await users.credentials(userID: username)
        let hasher = self.hasher
        let hash = credentials?.passwordHash ?? Self.decoyHash
        let matches = try await NIOThreadPool.singleton.runIfActive { hasher.verify(password, hash: hash) }
        guard let user = credentials?.user, matches else {
            throttle.recordFailure(user: username, address: address, now: now)
            logger.notice("care app: failed sign-in for '\(username)' from \(address)")
            return .wrong
        }
        throttle.recordSuccess(user: username)
        return .user(user)
    }

    /// Compared with when the user name is unknown, so that an unknown name takes as long as a wrong password.
    static let decoyHash = PasswordHasher(cost: 4).hash("not a password of anyone")
}
