import GRDB

/// Migration `"v12-app-users"`: the people who use the care app, the patients each may see, their server-side
/// sessions, and who recorded an outcome by hand.
///
/// A session row holds the SHA-256 of the cookie's token, never the token: a copy of the store does not log anyone
/// in. Outcomes gain `author`, the user who completed the event through the app (nil: a device or the CLI).
enum UserSchema {
    static let migrationName = "v12-app-users"

    /// Appends the migration. Append-only: never edit it once released.
    static func register(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration(migrationName) { db in
            try db.execute(
                sql: """
                    CREATE TABLE appUser (
                        id TEXT PRIMARY KEY NOT NULL,
                        displayName TEXT NOT NULL,
                        role TEXT NOT NULL,
                        passwordHash TEXT NOT NULL,
                        createdDate DOUBLE NOT NULL,
                        passwordChangedDate DOUBLE NOT NULL
                    );
                    CREATE TABLE appUserPatient (
                        userID TEXT NOT NULL REFERENCES appUser(id) ON DELETE CASCADE,
                        patientID TEXT NOT NULL,
                        PRIMARY KEY (userID, patientID)
                    ) WITHOUT ROWID;
                    CREATE TABLE appSession (
                        tokenHash BLOB PRIMARY KEY NOT NULL,
                        userID TEXT NOT NULL REFERENCES appUser(id) ON DELETE CASCADE,
                        csrfToken TEXT NOT NULL,
                        createdDate DOUBLE NOT NULL,
                        lastSeenDate DOUBLE NOT NULL,
                        expiresDate DOUBLE NOT NULL
                    ) WITHOUT ROWID;
                    CREATE INDEX appSession_on_userID ON appSession(userID);
                    ALTER TABLE outcome ADD COLUMN author TEXT;
                    """
            )
        }
    }
}
