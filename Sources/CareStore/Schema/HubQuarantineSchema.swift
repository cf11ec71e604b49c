import Foundation
import GRDB

/// Migration `"v23-hub-quarantine"`: quarantined readings go up to the hub (as `quarantined`, held apart there for
/// the care team to decide on). A bridge whose hub channel was enabled before dropped them from its queue; this
/// queues its live quarantined readings again, once, so the hub can list them (in the order and with the times the
/// first enable queues them: ``OutboxChannelTypesSchema/enqueueStored(_:channel:types:where:)``).
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
            try OutboxChannelTypesSchema.enqueueStored(
                db,
                channel: channel,
                types: nil,
                where: "r.state IS NOT NULL AND r.state & \(SampleTable.quarantinedBit) != 0"
            )
        }
    }
}
