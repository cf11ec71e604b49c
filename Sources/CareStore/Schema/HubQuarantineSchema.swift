import BridgeCore
import Foundation
import GRDB

/// Migration `"v23-hub-quarantine"`: quarantined readings go up to the hub (as `quarantined`, held apart there for
/// the care team to decide on). A bridge whose hub channel was enabled before dropped them from its queue; this
/// queues its live quarantined readings again, once, so the hub can list them.
enum HubQuarantineSchema {
    static let migrationName = "v23-hub-quarantine"

    /// Appends the migration. Append-only: never edit it once released.
    static func register(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration(migrationName) { db in
            let channel = OutcomeOutboxSchema.channel
            guard
                try Bool.fetchOne(db, sql: "SELECT 1 FROM outboxChannel WHERE name = ?", arguments: [channel])
                    ?? false
            else { return }
            var reader = try SampleRowReader(db)
            let held = try reader.samples(
                db,
                where: """
                    r.type IN (SELECT code FROM quantityType) AND r.state IS NOT NULL \
                    AND r.state & \(SampleTable.quarantinedBit) != 0 AND r.state & \(SampleTable.deletedBit) = 0
                    """,
                arguments: []
            )
            .sorted { ($0.recordedAt, $0.sample.start) < ($1.recordedAt, $1.sample.start) }
            let insert = try db.makeStatement(
                sql: "INSERT OR IGNORE INTO outboxEntry (channel, sampleID, enqueuedAt) VALUES (?, ?, ?)"
            )
            for stored in held {
                try insert.execute(arguments: [channel, stored.id.data, stored.recordedAt.timeIntervalSince1970])
            }
        }
    }
}
