import Foundation
import GRDB

/// What `carebridge store check` finds: SQLite's integrity check, rows that refer to missing rows, and how far
/// the schema is migrated. The file is opened read-only and nothing is migrated or repaired, so a damaged store
/// is looked at as it is.
public struct StoreCheck: Sendable, Hashable {
    /// How far the store's schema is migrated.
    public enum Level: Sendable, Hashable {
        /// Every migration this release knows is applied, and no other.
        case current(String)
        /// Migrations this release would apply (the next command that writes runs them).
        case behind(last: String?, pending: [String])
        /// Migrations this release does not know: written by a newer CareBridge.
        case newer(unknown: [String])
    }

    /// One row that refers to a row that is not there (`PRAGMA foreign_key_check`).
    public struct MissingReference: Sendable, Hashable {
        public var table: String
        public var rowid: Int64?
        public var parent: String
    }

    /// The store file.
    public var path: String
    /// Whether only SQLite's quick check ran (pages and structure, not index contents).
    public var quick: Bool
    /// SQLite's findings, empty when it answered "ok" (at most 100 lines).
    public var integrityProblems: [String]
    public var missingReferences: [MissingReference]
    public var level: Level
    /// The file's size with its write-ahead log.
    public var bytes: Int

    /// Whether nothing is wrong (a store behind the current schema is not wrong: it is upgraded when written).
    public var isHealthy: Bool {
        guard integrityProblems.isEmpty, missingReferences.isEmpty else { return false }
        if case .newer = level { return false }
        return true
    }

    /// Checks the store at `path` without changing it.
    /// - Parameter quick: `PRAGMA quick_check` instead of `integrity_check` (much faster on a large store; does
    ///   not compare indexes with their tables).
    /// - Throws: ``CareStoreError`` `.storeLocation` when there is no file or it cannot be read; a file that is
    ///   not a database, or too damaged to be read at all, is reported as an integrity problem instead.
    public static func run(path: String, quick: Bool = false) throws(CareStoreError) -> StoreCheck {
        guard try StoreAccess.level(of: path) != .missing else {
            throw CareStoreError(
                .storeLocation,
                "no store at \(path): check --store (or $\(StoreLocation.environmentVariable))"
            )
        }
        var check = StoreCheck(
            path: path,
            quick: quick,
            integrityProblems: [],
            missingReferences: [],
            level: .current(""),
            bytes: CareStore.fileSize(path) + CareStore.fileSize(path + "-wal")
        )
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(CareStore.busyTimeout)
        configuration.label = "StoreCheck"
        do {
            let queue = try CareStore.openReadOnly(path, configuration: configuration)
            try queue.read { db in
                let pragma = quick ? "quick_check(100)" : "integrity_check(100)"
                let answers = try String.fetchAll(db, sql: "PRAGMA \(pragma)")
                check.integrityProblems = answers == ["ok"] ? [] : answers
                let rows = try Row.fetchAll(db, sql: "PRAGMA foreign_key_check")
                check.missingReferences = rows.prefix(100).map { row in
                    MissingReference(table: row[0], rowid: row[1], parent: row[2])
                }
                check.level = try level(db)
            }
        } catch let error as DatabaseError
            where [.SQLITE_CORRUPT, .SQLITE_NOTADB].contains(error.resultCode)
        {
            check.integrityProblems = ["the file cannot be read as a SQLite database: \(error.message ?? "\(error)")"]
            check.level = .behind(last: nil, pending: [])
        } catch {
            throw CareStoreError(.storeLocation, "cannot check store \(path): \(error)", cause: error)
        }
        return check
    }

    static func level(_ db: Database) throws -> Level {
        let known = Schema.migrator.migrations
        let applied =
            try db.tableExists("grdb_migrations")
            ? try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations") : []
        let unknown = applied.filter { !known.contains($0) }
        if !unknown.isEmpty { return .newer(unknown: unknown.sorted()) }
        let pending = known.filter { !applied.contains($0) }
        if pending.isEmpty { return .current(known.last ?? "") }
        return .behind(last: known.last { applied.contains($0) }, pending: pending)
    }
}
