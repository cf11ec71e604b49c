public import Foundation
public import GRDB
public import Logging

/// The care-plan store: versioned tasks, samples, outcomes, and the auto-completion that links them.
///
/// A `Sendable` value owning one GRDB writer (a `DatabasePool` for files, so several processes can share a store
/// in WAL mode). Every write is one IMMEDIATE transaction; SQLite's busy timeout makes concurrent writers wait
/// instead of failing, so no "database is locked" reaches a caller.
public struct CareStore: Sendable {
    /// The database, for this package's benchmarks and tests (raw SQL checks of the schema); everything else goes
    /// through the store's methods.
    package let databaseWriter: any DatabaseWriter
    /// The bridge's configured zone: floating schedules are evaluated in it.
    public let bridgeZone: TimeZone
    let logger: Logger
    let broadcaster = ChangeBroadcaster()
    /// What recording samples keeps between writes (task versions, routing, lookup ids), shared by this value's
    /// copies, which share its writer.
    package let ingestSession = IngestSession()
    /// The patient this store value reads and writes care data for (``scoped(to:)``); nil: every patient (reads)
    /// and routing by the device registry (``recordSamples(_:recordedAt:)``).
    public internal(set) var patientScope: String?

    /// Whether the store was opened read-only (``OpenMode/existing`` on a file this user may only read): reads
    /// work, writes fail.
    public var isReadOnly: Bool { databaseWriter.configuration.readonly }

    /// How long a writer waits for another process's transaction before giving up (seconds).
    public static let busyTimeout: TimeInterval = 60

    /// How ``init(path:bridgeZone:logger:mode:)`` treats the file.
    public enum OpenMode: Sendable {
        /// Create the store if it does not exist (commands that record something).
        case create
        /// Open only a store that exists (commands that list or export): a mistyped path creates nothing.
        /// Opened read-write when this user may write it (so a pending migration runs), else read-only.
        case existing
    }

    /// Opens the store file at `path` (creating it with `.create`: mode 0600 in a 0700 directory), WAL journal,
    /// migrated to the newest schema.
    /// - Throws: ``CareStoreError`` (`.storeLocation` or `.database`) naming the path; a file this user may not
    ///   use is reported with its owner and what to do; with `.existing` a missing file is an error.
    public init(path: String, bridgeZone: TimeZone, logger: Logger, mode: OpenMode = .create) throws(CareStoreError) {
        switch (try StoreAccess.level(of: path), mode) {
        case (.missing, .existing):
            throw CareStoreError(
                .storeLocation,
                "no store at \(path): nothing has been recorded there. Check --store (or $\(StoreLocation.environmentVariable)); "
                    + "`carebridge plan apply`, `ingest` or `replay` create a store"
            )
        case (.readOnly, .existing):
            try self.init(readOnlyPath: path, bridgeZone: bridgeZone, logger: logger)
            return
        case (.readOnly, .create):
            throw CareStoreError(.storeLocation, StoreAccess.readOnlyMessage(path))
        case (.missing, .create), (.readWrite, _):
            break
        }
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
        // Readers stay in the pool, so that ``finishPendingAccess()`` can wait for each one's queue to drain.
        configuration.persistentReadOnlyConnections = true
        let pool: DatabasePool
        do {
            pool = try Self.openPool(path, configuration: configuration)
        } catch {
            throw CareStoreError(.database, "cannot open store \(path): \(error)", cause: error)
        }
        try self.init(writer: pool, bridgeZone: bridgeZone, logger: logger)
        logger.debug("opened care store", metadata: ["store.path": "\(path)"])
    }

    /// Opens a store this user may read but not write, for listing and exporting. Writes fail with SQLite's
    /// read-only error; a store that still needs a migration cannot be opened this way.
    private init(readOnlyPath path: String, bridgeZone: TimeZone, logger: Logger) throws(CareStoreError) {
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(Self.busyTimeout)
        configuration.label = "CareStore"
        let queue: DatabaseQueue
        do {
            queue = try Self.openReadOnly(path, configuration: configuration)
            let complete = try queue.read { db in try Schema.migrator.hasCompletedMigrations(db) }
            guard complete else {
                throw CareStoreError(
                    .storeLocation,
                    "the store \(path) needs an upgrade, which needs write access. "
                        + StoreAccess.readOnlyMessage(path)
                )
            }
        } catch let error as CareStoreError {
            throw error
        } catch {
            throw CareStoreError(
                .database,
                "cannot open store \(path) read-only: \(error). " + StoreAccess.readOnlyMessage(path),
                cause: error
            )
        }
        self.databaseWriter = queue
        self.bridgeZone = bridgeZone
        self.logger = logger
        logger.debug("opened care store read-only", metadata: ["store.path": "\(path)"])
    }

    /// The pool, retried while another process holds the lock that switching a new file to WAL needs: SQLite
    /// answers that `PRAGMA journal_mode = WAL` with SQLITE_BUSY at once, without the busy handler (several
    /// commands creating the same store together, one in 16 failed under load).
    private static func openPool(_ path: String, configuration: Configuration) throws -> DatabasePool {
        let deadline = Date().addingTimeInterval(busyTimeout)
        while true {
            do {
                return try DatabasePool(path: path, configuration: configuration)
            } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY && Date() < deadline {
                usleep(50_000)
            }
        }
    }

    /// A read-only connection. SQLite reads a WAL store read-only only when its `-shm` file exists or can be
    /// created; in a directory this user may not write, with no `-wal` file (so no writer is active), the file
    /// is opened as immutable instead.
    static func openReadOnly(_ path: String, configuration: Configuration) throws -> DatabaseQueue {
        do {
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            try queue.read { db in _ = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sqlite_master") }
            return queue
        } catch {
            guard !FileManager.default.fileExists(atPath: path + "-wal") else { throw error }
            var allowed = CharacterSet.urlPathAllowed
            allowed.remove(charactersIn: "?#%")
            let escaped = path.addingPercentEncoding(withAllowedCharacters: allowed) ?? path
            let queue = try DatabaseQueue(path: "file:\(escaped)?immutable=1", configuration: configuration)
            try queue.read { db in _ = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sqlite_master") }
            return queue
        }
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
        if upgrade != nil {
            // The compact layout is converted chunk by chunk, each chunk committed on its own, before the
            // migration that finishes it (CompactSampleSchema: resumable, bounded WAL).
            do {
                try Schema.migrator.migrate(writer, upTo: OutcomeSampleIDSchema.migrationName)
                if let pending = try writer.read({ db in try CompactSampleSchema.pendingSamples(db) }), pending > 0 {
                    try CompactSampleSchema.convertInChunks(writer, logger: logger, total: pending)
                }
            } catch {
                throw CareStoreError(.database, "cannot upgrade the store: \(error)", cause: error)
            }
        }
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
            // The old layout's pages are free now; give them back to the file system.
            do {
                try writer.vacuum()
                logger.notice(
                    "store compacted",
                    metadata: ["seconds": "\(String(format: "%.1f", Date().timeIntervalSince(upgrade) - seconds))"]
                )
            } catch {
                logger.warning("the upgraded store could not be compacted (VACUUM): \(error); it works as it is")
            }
        }
    }

    /// Says so (a warning, so that it shows by default) before a migration that rewrites every sample of an
    /// existing store: on a large store it takes a while, and the user should know why the command pauses.
    /// - Returns: when the long migration starts, or nil when there is none to run.
    private static func announceLongMigrations(_ writer: any DatabaseWriter, logger: Logger) -> Date? {
        let pending = try? writer.read { db -> (samples: Int, ids: Bool)? in
            let applied = try Schema.migrator.appliedIdentifiers(db)
            guard applied.contains("v1"), !applied.contains(CompactSampleSchema.migrationName),
                try db.tableExists("sample")
            else { return nil }
            return (
                try CompactSampleSchema.pendingSamples(db) ?? 0, !applied.contains(SampleIDSchema.migrationName)
            )
        }
        guard let pending = pending ?? nil, pending.samples > 0 else { return nil }
        let rate = pending.ids ? 50 : 20
        logger.warning(
            """
            upgrading the store: converting \(pending.samples) samples to the compact layout\(pending.ids ? ", ids in time order" : "") \
            (once; about \(rate) s per million samples, progress every \(CompactSampleSchema.chunkSize); \
            an interrupted upgrade continues where it stopped)
            """
        )
        return Date()
    }

    /// The names of the migrations applied to this store, oldest first.
    public func appliedMigrations() async throws(CareStoreError) -> [String] {
        try await read { db in try Schema.migrator.appliedMigrations(db) }
    }

    /// Every change committed through this store value (and its copies) from now on, batched per transaction.
    /// The stream ends when the consumer's task is cancelled.
    public func changes() -> AsyncStream<[StoreChange]> {
        broadcaster.subscribe()
    }

    // MARK: - Access with typed errors

    /// Runs `body` in a read transaction on one of GRDB's reader connections, suspending the caller instead of
    /// blocking a thread of the cooperative pool (the runtime's entry points; GRDB's demo `AppDatabase` has this
    /// shape). It is not interrupted when the caller's task is cancelled.
    func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws(CareStoreError) -> T {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, any Error>, Never>) in
            databaseWriter.asyncRead { database in
                continuation.resume(returning: Result { try body(database.get()) })
            }
        }
        do {
            return try result.get()
        } catch {
            throw Self.accessError(error, "read")
        }
    }

    /// Runs `body` in one IMMEDIATE write transaction on GRDB's writer queue, suspending the caller while another
    /// connection or process holds the lock instead of blocking a thread of the cooperative pool.
    ///
    /// A write handed to the store completes even when the caller's task is cancelled meanwhile (GRDB's own
    /// `write` async would throw `CancellationError`): a shutdown cancels the reader of a recording, and what it
    /// read is still stored.
    func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws(CareStoreError) -> T {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, any Error>, Never>) in
            databaseWriter.asyncWrite(body) { _, result in continuation.resume(returning: result) }
        }
        do {
            return try result.get()
        } catch {
            throw Self.accessError(error, "write")
        }
    }

    /// Waits until every read and write handed to the store has finished and GRDB has let go of the store, so
    /// that the connections close when the last value of the store is released: the last connection to close
    /// checkpoints the WAL into the store file and removes it, and a user who may only read the store can open it
    /// afterwards. A command that returns while an async write's completion has resumed it but GRDB still holds
    /// the connection, and then exits, would leave the `-wal` file behind.
    ///
    /// The barrier alone is not enough after an async read: GRDB hands the reader back to its pool (which ends
    /// the barrier) from inside the job on the reader's queue, and that job holds the reader connection a moment
    /// longer. Released then, the store closed its writer while that reader was still open, so the writer could
    /// not checkpoint, and the reader, read-only, closed last and could not either: one `carebridge ingest` in
    /// about eight left the `-wal` behind on the loaded 2-core machine. Draining every reader's queue
    /// (`releaseMemory()` with persistent readers) waits for those jobs.
    ///
    /// Not async on purpose: it runs once, at the end of a command whose work has finished, and waiting is its job;
    /// what it waits for runs on GRDB's own queues, which never need the cooperative pool to make progress.
    /// - Throws: ``CareStoreError`` (`.database`) when the store cannot be reached.
    public func finishPendingAccess() throws(CareStoreError) {
        do {
            try databaseWriter.barrierWriteWithoutTransaction { _ in }
            (databaseWriter as? DatabasePool)?.releaseMemory()
        } catch {
            throw CareStoreError(.database, "cannot finish the store's pending work: \(error)", cause: error)
        }
    }

    /// A ``CareStoreError`` thrown by a body as it is; anything else (SQLite, cancellation) as `.database`.
    private static func accessError(_ error: any Error, _ access: String) -> CareStoreError {
        if let error = error as? CareStoreError { return error }
        return CareStoreError(.database, "store \(access) failed: \(error)", cause: error)
    }
}
