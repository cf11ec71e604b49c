public import CareStore
public import Foundation
import PostgresNIO

// MARK: - CareUserDirectory

/// The dashboard's users and sessions in PostgreSQL (`v7-users`), behind the same interface as a bridge's store,
/// so the care app's sign-in, sessions and CSRF run unchanged on the hub.
extension HubStore: CareUserDirectory {
    /// Adds a user of the dashboard with a bcrypt hash made by the caller.
    /// - Throws: ``HubError`` `.invalid` for a bad id or name, a user that exists, or a patient no bridge is
    ///   enrolled for; `.database`.
    public func addUser(_ user: CareUser, passwordHash: String, at now: Date) async throws(HubError) {
        do {
            try user.validate()
        } catch {
            throw HubError(.invalid, error.message)
        }
        try await database("cannot add the user '\(user.id)'") {
            try await client.withTransaction(logger: logger) { connection in
                try await requireEnrolled(user.patientIDs, on: connection)
                let inserted = try await connection.query(
                    """
                    INSERT INTO hub_user (id, display_name, role, password_hash, time_zone, created_at)
                    VALUES (\(user.id), \(user.displayName), \(user.role.rawValue), \(passwordHash),
                        \(user.timeZone?.identifier), \(now))
                    ON CONFLICT (id) DO NOTHING RETURNING id
                    """,
                    logger: logger
                ).decode(String.self).collected()
                guard !inserted.isEmpty else { throw HubError(.invalid, "a user '\(user.id)' exists already") }
                for patient in Set(user.patientIDs) {
                    try await connection.query(
                        "INSERT INTO hub_user_patient (user_id, patient_id) VALUES (\(user.id), \(patient))",
                        logger: logger
                    )
                }
            }
        }
    }

    /// Whether the dashboard has any user.
    public func hasUsers() async throws(HubError) -> Bool {
        try await database("cannot read the users") {
            try await client.query("SELECT EXISTS (SELECT 1 FROM hub_user)", logger: logger)
                .decode(Bool.self).collected().first ?? false
        }
    }

    /// The user with this id and the hash to check a password against; nil when there is none.
    public func credentials(userID: String) async throws(HubError) -> (user: CareUser, passwordHash: String)? {
        try await database("cannot read the user '\(userID)'") {
            try await user(userID)
        }
    }

    /// Starts a session; expired sessions go when a new one starts.
    public func startSession(
        userID: String,
        tokenHash: Data,
        csrfToken: String,
        at now: Date,
        expires: Date
    ) async throws(HubError) {
        try await database("cannot start a session for '\(userID)'") {
            try await client.withTransaction(logger: logger) { connection in
                try await connection.query(
                    """
                    INSERT INTO hub_session (token_hash, user_id, csrf_token, created_at, expires_at)
                    VALUES (\(Self.hex(tokenHash)), \(userID), \(csrfToken), \(now), \(expires))
                    """,
                    logger: logger
                )
                try await connection.query("DELETE FROM hub_session WHERE expires_at <= \(now)", logger: logger)
            }
        }
    }

    /// The live session with this token hash, its expiry moved to `extendTo` (at most `limit` after it started)
    /// when that is a minute or more later; nil when there is none, it has expired, or its user is gone.
    public func session(
        tokenHash: Data,
        at now: Date,
        extendTo: Date,
        limit: TimeInterval
    ) async throws(HubError) -> AppSession? {
        let key = Self.hex(tokenHash)
        return try await database("cannot read a session") {
            let rows = try await client.query(
                "SELECT user_id, csrf_token, created_at, expires_at FROM hub_session WHERE token_hash = \(key)",
                logger: logger
            ).decode((String, String, Date, Date).self).collected()
            guard let (userID, csrf, created, expires) = rows.first, expires > now,
                let user = try await user(userID)?.user
            else { return nil }
            var session = AppSession(
                tokenHash: tokenHash,
                user: user,
                csrfToken: csrf,
                createdDate: created,
                expiresDate: expires
            )
            if let extended = session.extendedExpiry(to: extendTo, limit: limit) {
                try await client.query(
                    "UPDATE hub_session SET expires_at = \(extended) WHERE token_hash = \(key)",
                    logger: logger
                )
                session.expiresDate = extended
            }
            return session
        }
    }

    /// Ends one session.
    public func endSession(tokenHash: Data) async throws(HubError) {
        try await database("cannot end a session") {
            _ = try await client.query(
                "DELETE FROM hub_session WHERE token_hash = \(Self.hex(tokenHash))",
                logger: logger
            )
        }
    }
}

// MARK: - Managing users (`carebridge hub users`)

extension HubStore {
    /// Every user of the dashboard with the patients each may see, by id.
    public func users() async throws(HubError) -> [CareUser] {
        try await database("cannot read the users") {
            let ids = try await client.query("SELECT id FROM hub_user ORDER BY id", logger: logger)
                .decode(String.self).collected()
            var users: [CareUser] = []
            for id in ids {
                if let found = try await user(id) { users.append(found.user) }
            }
            return users
        }
    }

    /// Links the user to more patients (those linked already stay); returns every patient the user now sees.
    /// - Throws: ``HubError`` `.invalid` when there is no such user or no bridge is enrolled for a patient;
    ///   `.database`.
    @discardableResult
    public func link(userID: String, to patients: [String]) async throws(HubError) -> [String] {
        try await changeLinks(of: userID, "cannot link '\(userID)' to \(patients.joined(separator: ", "))") {
            connection in
            try await requireEnrolled(patients, on: connection)
            for patient in Set(patients) {
                try await connection.query(
                    """
                    INSERT INTO hub_user_patient (user_id, patient_id) VALUES (\(userID), \(patient))
                    ON CONFLICT DO NOTHING
                    """,
                    logger: logger
                )
            }
        }
    }

    /// Unlinks the user from these patients; returns every patient the user still sees.
    /// - Throws: ``HubError`` `.invalid` when there is no such user or it is not linked to one of them; `.database`.
    @discardableResult
    public func unlink(userID: String, from patients: [String]) async throws(HubError) -> [String] {
        try await changeLinks(of: userID, "cannot unlink '\(userID)' from \(patients.joined(separator: ", "))") {
            connection in
            let removed = try await connection.query(
                """
                DELETE FROM hub_user_patient WHERE user_id = \(userID) AND patient_id = ANY(\(patients))
                RETURNING patient_id
                """,
                logger: logger
            ).decode(String.self).collected()
            let missing = Set(patients).subtracting(removed).sorted()
            guard missing.isEmpty else {
                throw HubError(.invalid, "'\(userID)' is not linked to \(missing.joined(separator: ", "))")
            }
        }
    }

    /// Sets the user's password hash (made by the caller) and ends the user's open sessions.
    /// - Throws: ``HubError`` `.invalid` when there is no such user; `.database`.
    public func setPasswordHash(userID: String, _ passwordHash: String) async throws(HubError) {
        try await database("cannot set the password of '\(userID)'") {
            try await client.withTransaction(logger: logger) { connection in
                let changed = try await connection.query(
                    "UPDATE hub_user SET password_hash = \(passwordHash) WHERE id = \(userID) RETURNING id",
                    logger: logger
                ).decode(String.self).collected()
                guard !changed.isEmpty else { throw HubError(.invalid, "there is no user '\(userID)'") }
                try await connection.query("DELETE FROM hub_session WHERE user_id = \(userID)", logger: logger)
            }
        }
    }

    /// Runs `change` on the user's links in one transaction, then reads the patients the user sees.
    private func changeLinks(
        of userID: String,
        _ context: String,
        _ change: @escaping @Sendable (PostgresConnection) async throws -> Void
    ) async throws(HubError) -> [String] {
        try await database(context) {
            try await client.withTransaction(logger: logger) { connection in
                let exists =
                    try await connection.query(
                        "SELECT EXISTS (SELECT 1 FROM hub_user WHERE id = \(userID))",
                        logger: logger
                    ).decode(Bool.self).collected().first ?? false
                guard exists else { throw HubError(.invalid, "there is no user '\(userID)'") }
                try await change(connection)
                return try await connection.query(
                    "SELECT patient_id FROM hub_user_patient WHERE user_id = \(userID) ORDER BY patient_id",
                    logger: logger
                ).decode(String.self).collected()
            }
        }
    }

    /// Throws unless some bridge is enrolled for each patient.
    func requireEnrolled(_ patients: [String], on connection: PostgresConnection) async throws {
        let known = try await connection.query(
            "SELECT DISTINCT patient_id FROM hub_enrolment WHERE patient_id = ANY(\(patients))",
            logger: logger
        ).decode(String.self).collected()
        let unknown = Set(patients).subtracting(known).sorted()
        guard unknown.isEmpty else {
            throw HubError(.invalid, "no bridge is enrolled for \(unknown.joined(separator: ", "))")
        }
    }
}

extension HubStore {
    /// The user with its linked patients and its password hash.
    private func user(_ id: String) async throws -> (user: CareUser, passwordHash: String)? {
        let rows = try await client.query(
            """
            SELECT display_name, role, password_hash, time_zone, created_at,
                coalesce((SELECT array_agg(patient_id ORDER BY patient_id) FROM hub_user_patient
                    WHERE user_id = u.id), '{}')
            FROM hub_user u WHERE id = \(id)
            """,
            logger: logger
        ).decode((String, String, String, String?, Date, [String]).self).collected()
        guard let (name, roleName, hash, zone, created, patients) = rows.first else { return nil }
        guard let role = CareUser.Role(rawValue: roleName) else {
            throw HubError(.database, "user '\(id)' has an unknown role '\(roleName)'")
        }
        let user = CareUser(
            id: id,
            displayName: name,
            role: role,
            patientIDs: patients,
            createdDate: created,
            timeZone: zone.flatMap(TimeZone.init(identifier:))
        )
        return (user, hash)
    }

    static func hex(_ data: Data) -> String {
        data.map { String(format: "%02x", $0) }.joined()
    }
}
