public import Foundation
import GRDB

extension CareStore {
    /// Adds a user of the care app with a password hash made by the caller (the store never sees a password).
    /// - Throws: ``CareStoreError`` `.invalidUser` (a bad id, an empty name, a patient that does not exist),
    ///   `.userExists`.
    public func addUser(_ user: CareUser, passwordHash: String, at now: Date = Date()) async throws(CareStoreError) {
        try user.validate()
        try await write { db in
            try Self.checkPatients(db, user.patientIDs)
            guard try !Self.userExists(db, user.id) else {
                throw CareStoreError(.userExists, "a user '\(user.id)' exists already")
            }
            try db.execute(
                sql: """
                    INSERT INTO appUser (id, displayName, role, passwordHash, createdDate, passwordChangedDate, timeZone)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    user.id, user.displayName, user.role.rawValue, passwordHash, now.timeIntervalSince1970,
                    now.timeIntervalSince1970, user.timeZone?.identifier,
                ]
            )
            try Self.link(db, userID: user.id, patientIDs: user.patientIDs)
        }
    }

    /// Every user, by id.
    public func users() async throws(CareStoreError) -> [CareUser] {
        try await read { db in try Self.users(db, where: nil) }
    }

    /// Whether the store has any user (a care app with none refuses to start).
    public func hasUsers() async throws(CareStoreError) -> Bool {
        try await read { db in try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM appUser)") ?? false }
    }

    /// The user with this id and the password hash to check a login against; nil when there is none.
    public func credentials(userID: String) async throws(CareStoreError) -> (user: CareUser, passwordHash: String)? {
        try await read { db in
            guard let user = try Self.users(db, where: userID).first,
                let hash = try String.fetchOne(
                    db,
                    sql: "SELECT passwordHash FROM appUser WHERE id = ?",
                    arguments: [userID]
                )
            else { return nil }
            return (user, hash)
        }
    }

    /// Replaces a user's password hash and ends every session of that user.
    /// - Throws: ``CareStoreError`` `.userNotFound`.
    public func setPasswordHash(userID: String, _ hash: String, at now: Date = Date()) async throws(CareStoreError) {
        try await write { db in
            try db.execute(
                sql: "UPDATE appUser SET passwordHash = ?, passwordChangedDate = ? WHERE id = ?",
                arguments: [hash, now.timeIntervalSince1970, userID]
            )
            guard db.changesCount == 1 else { throw Self.noUser(userID) }
            try db.execute(sql: "DELETE FROM appSession WHERE userID = ?", arguments: [userID])
        }
    }

    /// Sets the zone the care app shows a user's times in; nil: the bridge's zone.
    /// - Throws: ``CareStoreError`` `.userNotFound`.
    public func setTimeZone(userID: String, _ zone: TimeZone?) async throws(CareStoreError) {
        try await write { db in
            try db.execute(
                sql: "UPDATE appUser SET timeZone = ? WHERE id = ?",
                arguments: [zone?.identifier, userID]
            )
            guard db.changesCount == 1 else { throw Self.noUser(userID) }
        }
    }

    /// Replaces the patients a user may see.
    /// - Throws: ``CareStoreError`` `.userNotFound`, `.invalidUser` (a patient that does not exist).
    public func setPatients(userID: String, _ patientIDs: [String]) async throws(CareStoreError) {
        try await write { db in
            guard try Self.userExists(db, userID) else { throw Self.noUser(userID) }
            try Self.checkPatients(db, patientIDs)
            try db.execute(sql: "DELETE FROM appUserPatient WHERE userID = ?", arguments: [userID])
            try Self.link(db, userID: userID, patientIDs: patientIDs)
        }
    }

    /// Removes a user and their sessions; what they recorded keeps their id as its author.
    /// - Throws: ``CareStoreError`` `.userNotFound`.
    public func removeUser(id: String) async throws(CareStoreError) {
        try await write { db in
            try db.execute(sql: "DELETE FROM appSession WHERE userID = ?", arguments: [id])
            try db.execute(sql: "DELETE FROM appUserPatient WHERE userID = ?", arguments: [id])
            try db.execute(sql: "DELETE FROM appUser WHERE id = ?", arguments: [id])
            guard db.changesCount == 1 else { throw Self.noUser(id) }
        }
    }

    // MARK: - Sessions

    /// Starts a session for the user; the caller keeps the token, the store its hash.
    public func startSession(
        userID: String,
        tokenHash: Data,
        csrfToken: String,
        at now: Date,
        expires: Date
    ) async throws(CareStoreError) {
        try await write { db in
            guard try Self.userExists(db, userID) else { throw Self.noUser(userID) }
            try db.execute(
                sql: """
                    INSERT INTO appSession (tokenHash, userID, csrfToken, createdDate, lastSeenDate, expiresDate)
                    VALUES (?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    tokenHash, userID, csrfToken, now.timeIntervalSince1970, now.timeIntervalSince1970,
                    expires.timeIntervalSince1970,
                ]
            )
            // Expired sessions go when new ones start: the table holds the live ones and a few stale.
            try db.execute(sql: "DELETE FROM appSession WHERE expiresDate <= ?", arguments: [now.timeIntervalSince1970])
        }
    }

    /// The live session with this token hash, its expiry moved to `extendTo` when that is later (an idle timeout
    /// that use keeps open, never past `limit`); nil when there is none or it has expired.
    public func session(
        tokenHash: Data,
        at now: Date,
        extendTo: Date,
        limit: TimeInterval
    ) async throws(CareStoreError) -> AppSession? {
        // Most requests only read: the expiry moves at most once a minute, and only then is the write lock taken
        // (expired rows go when the next session starts).
        guard let found = try await read({ db in try Self.liveSession(db, tokenHash: tokenHash, now: now) }) else {
            return nil
        }
        guard let extended = found.extendedExpiry(to: extendTo, limit: limit) else { return found }
        return try await write { db -> AppSession? in
            guard var session = try Self.liveSession(db, tokenHash: tokenHash, now: now) else { return nil }
            session.expiresDate = max(session.expiresDate, extended)
            try db.execute(
                sql: "UPDATE appSession SET lastSeenDate = ?, expiresDate = ? WHERE tokenHash = ?",
                arguments: [now.timeIntervalSince1970, session.expiresDate.timeIntervalSince1970, tokenHash]
            )
            return session
        }
    }

    /// The session with this token hash if it has not expired at `now` and its user still exists.
    private static func liveSession(_ db: Database, tokenHash: Data, now: Date) throws -> AppSession? {
        guard
            let row = try Row.fetchOne(
                db,
                sql: "SELECT userID, csrfToken, createdDate, expiresDate FROM appSession WHERE tokenHash = ?",
                arguments: [tokenHash]
            )
        else { return nil }
        let expires = Date(timeIntervalSince1970: row["expiresDate"])
        guard expires > now, let user = try users(db, where: row["userID"]).first else { return nil }
        return AppSession(
            tokenHash: tokenHash,
            user: user,
            csrfToken: row["csrfToken"],
            createdDate: Date(timeIntervalSince1970: row["createdDate"]),
            expiresDate: expires
        )
    }

    /// Ends one session (logging out).
    public func endSession(tokenHash: Data) async throws(CareStoreError) {
        try await write { db in
            try db.execute(sql: "DELETE FROM appSession WHERE tokenHash = ?", arguments: [tokenHash])
        }
    }

    /// Ends every session of a user (revocation); returns how many there were.
    @discardableResult
    public func endSessions(userID: String) async throws(CareStoreError) -> Int {
        try await write { db in
            try db.execute(sql: "DELETE FROM appSession WHERE userID = ?", arguments: [userID])
            return db.changesCount
        }
    }

    // MARK: - Helpers

    private static func checkPatients(_ db: Database, _ patientIDs: [String]) throws {
        let known = Set(
            try String.fetchAll(
                db,
                sql: """
                    SELECT p.id FROM patient p
                    WHERE p.versionNumber = (SELECT max(versionNumber) FROM patient q WHERE q.id = p.id)
                      AND p.deletedDate IS NULL
                    """
            )
        )
        let unknown = patientIDs.filter { !known.contains($0) }
        guard unknown.isEmpty else {
            throw CareStoreError(
                .invalidUser,
                "no patient \(unknown.map { "'\($0)'" }.joined(separator: ", ")); patients: "
                    + (known.isEmpty
                        ? "none (add one with `carebridge patients add`)" : known.sorted().joined(separator: ", "))
            )
        }
    }

    private static func link(_ db: Database, userID: String, patientIDs: [String]) throws {
        for patientID in Set(patientIDs) {
            try db.execute(
                sql: "INSERT INTO appUserPatient (userID, patientID) VALUES (?, ?)",
                arguments: [userID, patientID]
            )
        }
    }

    private static func userExists(_ db: Database, _ id: String) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM appUser WHERE id = ?)", arguments: [id]) ?? false
    }

    private static func noUser(_ id: String) -> CareStoreError {
        CareStoreError(.userNotFound, "no user '\(id)' (list them with `carebridge users list`)")
    }

    /// Users (one, or all by id) with their linked patients.
    private static func users(_ db: Database, where id: String?) throws -> [CareUser] {
        let rows = try Row.fetchAll(
            db,
            sql: "SELECT id, displayName, role, createdDate, timeZone FROM appUser"
                + (id == nil ? "" : " WHERE id = ?") + " ORDER BY id",
            arguments: id.map { [$0] } ?? []
        )
        return try rows.map { row in
            let userID: String = row["id"]
            let roleName: String = row["role"]
            guard let role = CareUser.Role(rawValue: roleName) else {
                throw CareStoreError(.corruptRow, "user '\(userID)' has an unknown role '\(roleName)'")
            }
            let patients = try String.fetchAll(
                db,
                sql: "SELECT patientID FROM appUserPatient WHERE userID = ? ORDER BY patientID",
                arguments: [userID]
            )
            return CareUser(
                id: userID,
                displayName: row["displayName"],
                role: role,
                patientIDs: patients,
                createdDate: Date(timeIntervalSince1970: row["createdDate"]),
                // A name the system's tz database no longer knows falls back to the bridge's zone, which every
                // page names, rather than locking the user out.
                timeZone: (row["timeZone"] as String?).flatMap(TimeZone.init(identifier:))
            )
        }
    }
}

// MARK: - CareUserDirectory

extension CareStore: CareUserDirectory {}
