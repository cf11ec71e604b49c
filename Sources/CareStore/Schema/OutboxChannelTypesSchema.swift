import BridgeCore
import Foundation
import GRDB

/// Migration `"v20-outbox-channel-types"`: an outbox channel may take only some sample types
/// (`outboxChannel.sampleTypes`: the types' identifiers between spaces, ` bloodGlucose `; NULL: every type), so
/// a receiver that takes glucose only (Nightscout) is not sent every other reading to drop.
///
/// Every path that queues a sample (the inserter, a release from quarantine, an inbox assignment, a retraction)
/// goes through ``enqueueSQL``, so the filter is applied in the transaction that stores the sample whichever path
/// stores it.
enum OutboxChannelTypesSchema {
    static let migrationName = "v20-outbox-channel-types"

    /// Queues one sample for every enabled channel that takes its type. Arguments: the sample's id (16 bytes), the
    /// time it is queued at (seconds since 1970) and its type's identifier.
    static let enqueueSQL = """
        INSERT OR IGNORE INTO outboxEntry (channel, sampleID, enqueuedAt)
        SELECT name, ?, ? FROM outboxChannel
        WHERE sampleTypes IS NULL OR instr(sampleTypes, ' ' || ? || ' ') > 0
        """

    /// Queues `id` (of `type`) for every enabled channel that takes `type`.
    static func enqueue(_ db: Database, id: UUID, type: QuantityType, at date: Date) throws {
        try db.execute(sql: enqueueSQL, arguments: [id.data, date.timeIntervalSince1970, type.rawValue])
    }

    /// The column's value for a set of types: nil (every type) or the identifiers between spaces, sorted.
    static func column(_ types: Set<QuantityType>?) -> String? {
        types.map { " " + $0.map(\.rawValue).sorted().joined(separator: " ") + " " }
    }

    /// Appends the migration. Append-only: never edit it once released.
    static func register(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration(migrationName) { db in
            try db.execute(sql: "ALTER TABLE outboxChannel ADD COLUMN sampleTypes TEXT")
        }
    }
}
