import Foundation
import GRDB
import GRDBSQLite
import Synchronization

/// What recording samples keeps from one write to the next (``CareStore/recordSamples(_:recordedAt:)``): the
/// task versions and the events they schedule (the matcher), the patients and device assignments (the routing
/// registry), the ids of lookup-table rows and the next origin id. A notification then reads none of them again;
/// before this, every write read the plan, the patients and the assignments afresh.
///
/// All of it describes the store as the writer connection last left it, so it is used only inside that
/// connection's write access, and checked there before each use:
/// - `PRAGMA data_version` changes when another connection committed (another process such as
///   `carebridge plan apply`, or another `CareStore` opened on the same file): everything is read again.
/// - The connection's count of changed rows (`sqlite3_total_changes64`) moves when this connection wrote outside
///   the session (an outbox publish, an alert, a plan or patient saved through the same store): the facts about
///   the rows (``SampleInserter/Rows``, the vacuumed ranges) are read again, and everything when a write touched
///   the plan, the patients or the assignments. Temporary triggers on `task`, `carePlan`, `patient` and
///   `deviceAssignment` count those writes (``planGeneration``); they live on this connection only and change
///   nothing in the file.
/// - What a write leaves is kept only when its transaction commits; a rollback (or an error) drops it.
///
/// Checking costs one `PRAGMA data_version` per write, and one single-row read when this connection wrote
/// something else in between.
package final class IngestSession: Sendable {
    /// The state one write leaves for the next.
    struct State: Sendable {
        fileprivate var connection: UInt
        fileprivate var zone: TimeZone
        fileprivate var dataVersion: Int64
        fileprivate var totalChanges: Int64
        fileprivate var planGeneration: Int64
        var matcher: SampleMatcher
        var registry: SampleRouter.Registry
        var inserter: SampleInserter.Memory
        var aggregated: AggregatedRanges
    }

    private let kept = Mutex<State?>(nil)
    private let loadCount = Atomic<Int>(0)

    package init() {}

    /// How many times the plan, patients and assignments were read (once, then again after each change).
    package var loads: Int { loadCount.load(ordering: .relaxed) }

    /// The state for a write on `db`, the kept one when the store is still what it describes, else read afresh.
    /// Call it inside the write access and hand the result back to ``keep(_:db:)`` before the access ends.
    func begin(_ db: Database, zone: TimeZone) throws -> State {
        let previous = kept.withLock { state in
            defer { state = nil }
            return state
        }
        let connection = UInt(bitPattern: db.sqliteConnection)
        let dataVersion = try Int64.fetchOne(db.cachedStatement(sql: "PRAGMA data_version")) ?? 0
        let totalChanges = sqlite3_total_changes64(db.sqliteConnection)
        if var previous, previous.connection == connection, previous.zone == zone,
            previous.dataVersion == dataVersion
        {
            if previous.totalChanges == totalChanges { return previous }
            if try Self.planGeneration(db) == previous.planGeneration {
                previous.inserter.rows = nil
                previous.aggregated = AggregatedRanges()
                return previous
            }
        }
        try Self.installTriggers(db)
        loadCount.add(1, ordering: .relaxed)
        return State(
            connection: connection,
            zone: zone,
            dataVersion: dataVersion,
            totalChanges: totalChanges,
            planGeneration: try Self.planGeneration(db) ?? 0,
            matcher: try SampleMatcher(db: db, bridgeZone: zone),
            registry: try SampleRouter.Registry(db: db),
            inserter: SampleInserter.Memory(),
            aggregated: AggregatedRanges()
        )
    }

    /// Keeps `state` for the next write once the current transaction commits (a rollback drops it: it may name
    /// rows that were never committed).
    func keep(_ state: State, db: Database) {
        var committed = state
        committed.totalChanges = sqlite3_total_changes64(db.sqliteConnection)
        db.afterNextTransaction { [self, committed] _ in self.kept.withLock { $0 = committed } }
    }

    /// The tables whose rows the kept state is read from (besides the lookup tables, whose rows are never deleted,
    /// and the sample rows, covered by the change count).
    static let planTables = ["task", "carePlan", "patient", "deviceAssignment"]

    /// Counts, on this connection, every write to ``planTables``: a temporary table and triggers (created once
    /// per connection; they are not part of the store file).
    private static func installTriggers(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TEMP TABLE IF NOT EXISTS ingestPlanGeneration (value INTEGER NOT NULL);
                INSERT INTO ingestPlanGeneration (value)
                SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM ingestPlanGeneration);
                """
        )
        for table in planTables {
            for event in ["INSERT", "UPDATE", "DELETE"] {
                try db.execute(
                    sql: """
                        CREATE TEMP TRIGGER IF NOT EXISTS ingestPlan_\(table)_\(event.lowercased())
                        AFTER \(event) ON main.\(table)
                        BEGIN UPDATE ingestPlanGeneration SET value = value + 1; END
                        """
                )
            }
        }
    }

    /// The count of writes to ``planTables`` on this connection; nil before the triggers are installed.
    private static func planGeneration(_ db: Database) throws -> Int64? {
        guard try db.tableExists("ingestPlanGeneration", in: "temp") else { return nil }
        return try Int64.fetchOne(db, sql: "SELECT value FROM temp.ingestPlanGeneration")
    }
}
