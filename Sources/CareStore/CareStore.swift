public import Foundation
public import GRDB
public import Logging

/// The care-plan store: versioned tasks, samples, outcomes, and the auto-completion that links them.
///
/// A `Sendable` value owning one GRDB writer (a `DatabasePool` for files, so several processes can share a store
/// in WAL mode). Every write is one IMMEDIATE transaction; SQLite's busy timeout makes concurrent writers wait
/// instead of failing, so no "database is locked" reaches a caller.
public struct CareStore: Sendable {
    /// The database. Exposed for benchmarks and tests; go through the store's methods otherwise.
    public let databaseWriter: any DatabaseWriter
    /// The bridge's configured zone: floating schedules are evaluated in it.
    public let bridgeZone: TimeZone
    let logger: Logger
    let broadcaster = ChangeBroadcaster()

    /// How long a writer waits for another process's transaction before giving up (seconds).
    public static let busyTimeout: TimeInterval = 60

    /// Opens (creating if needed) the store file at `path`: mode 0600 in a 0700 directory, WAL journal, migrated
    /// to the newest schema.
    /// - Throws: ``CareStoreError`` (`.storeLocation` or `.database`) naming the path.
    public init(path: String, bridgeZone: TimeZone, logger: Logger) throws(CareStoreError) {
        try StoreLocation.prepare(path: path)
        var configuration = Configuration()
        configuration.busyMode = .timeout(Self.busyTimeout)
        configuration.label = "CareStore"
        configuration.prepareDatabase { db in
            // Durable at every checkpoint; in WAL mode NORMAL never corrupts, it may only lose the last
            // transactions on power loss.
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            // An 8 MiB page cache per connection: sample ids are time-ordered, so ingest touches the right-hand
            // edge of each index rather than the whole id index (a random id index needed 32 MiB and still
            // missed); it bounds the store's memory. No memory-mapped I/O: mapped pages of the file count as the
            // process's resident memory (a day of heart rate doubled the replay's peak RSS).
            try db.execute(sql: "PRAGMA cache_size = -8192")
        }
        let pool: DatabasePool
        do {
            pool = try DatabasePool(path: path, configuration: configuration)
        } catch {
            throw CareStoreError(.database, "cannot open store \(path): \(error)", cause: error)
        }
        try self.init(writer: pool, bridgeZone: bridgeZone, logger: logger)
        logger.debug("opened care store", metadata: ["store.path": "\(path)"])
    }

    /// Uses an existing writer (e.g. an in-memory `DatabaseQueue()` in tests) and migrates it.
    public init(writer: any DatabaseWriter, bridgeZone: TimeZone, logger: Logger) throws(CareStoreError) {
        self.databaseWriter = writer
        self.bridgeZone = bridgeZone
        self.logger = logger
        if let superseded = try? writer.read({ db in try Schema.migrator.hasBeenSuperseded(db) }), superseded {
            throw CareStoreError(
                .database,
                "the store was written by a newer CareBridge (it has migrations this version does not know); "
                    + "upgrade CareBridge or use another --store"
            )
        }
        let upgrade = Self.announceLongMigrations(writer, logger: logger)
        // GRDB reads the applied migrations before it takes the write lock, so two processes opening a new
        // store together can both try to run "v1"; the loser fails on an existing table. The winner has
        // committed by then, so migrating again finds nothing left to do.
        var attempt = 0
        while true {
            do {
                try Schema.migrator.migrate(writer)
                break
            } catch {
                attempt += 1
                guard attempt < 10, (try? writer.read({ db in try db.tableExists("grdb_migrations") })) == true else {
                    throw CareStoreError(.database, "cannot migrate the store: \(error)", cause: error)
                }
                logger.debug("migration raced another process; retrying", metadata: ["attempt": "\(attempt)"])
                Thread.sleep(forTimeInterval: 0.02)
            }
        }
        if let upgrade {
            let seconds = Date().timeIntervalSince(upgrade)
            logger.notice("store upgraded", metadata: ["seconds": "\(String(format: "%.1f", seconds))"])
        }
    }

    /// Says so (a warning, so that it shows by default) before a migration that rewrites every sample of an
    /// existing store: on a large store it takes a while, and the user should know why the command pauses.
    /// - Returns: when the long migration starts, or nil when there is none to run.
    private static func announceLongMigrations(_ writer: any DatabaseWriter, logger: Logger) -> Date? {
        let samples = try? writer.read { db -> Int? in
            let applied = try Schema.migrator.appliedIdentifiers(db)
            guard applied.contains("v1"), !applied.contains(SampleIDSchema.migrationName) else { return nil }
            return try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sample")
        }
        guard let samples = samples ?? nil, samples > 0 else { return nil }
        logger.warning(
            "upgrading the store: rewriting the ids of \(samples) samples in time order (once; about 30 s per million samples)"
        )
        return Date()
    }

    /// The names of the migrations applied to this store, oldest first.
    public func appliedMigrations() throws(CareStoreError) -> [String] {
        try read { db in try Schema.migrator.appliedMigrations(db) }
    }

    /// Every change committed through this store value (and its copies) from now on, batched per transaction.
    /// The stream ends when the consumer's task is cancelled.
    public func changes() -> AsyncStream<[StoreChange]> {
        broadcaster.subscribe()
    }

    // MARK: - Access with typed errors

    func read<T>(_ body: (Database) throws -> T) throws(CareStoreError) -> T {
        do {
            return try databaseWriter.read(body)
        } catch let error as CareStoreError {
            throw error
        } catch {
            throw CareStoreError(.database, "store read failed: \(error)", cause: error)
        }
    }

    func write<T>(_ body: (Database) throws -> T) throws(CareStoreError) -> T {
        do {
            return try databaseWriter.write(body)
        } catch let error as CareStoreError {
            throw error
        } catch {
            throw CareStoreError(.database, "store write failed: \(error)", cause: error)
        }
    }
}
