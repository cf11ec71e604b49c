import Foundation
import GRDB

/// Migration `"v9-outcome-sample-id-blob"`: `outcomeValue.sampleID` holds a sample id as the 16 bytes
/// `sample.id` and `outboxEntry.sampleID` hold, not as lowercase text: one representation of a sample id in the
/// whole store, compared and joined without conversion.
///
/// Every text id that reads as a UUID is rewritten in place (same rows, same positions); the column's declared
/// type stays `TEXT`, which SQLite never applies to blobs. A text that is not a UUID (not expected: CareBridge
/// only ever wrote UUIDs) is left as it is, never dropped: readers treat it, as before, as a value that names
/// no sample.
enum OutcomeSampleIDSchema {
    static let migrationName = "v9-outcome-sample-id-blob"

    /// Appends the migration. Append-only: never edit it once released.
    static func register(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration(migrationName) { db in
            let rows = try Row.fetchCursor(
                db,
                sql: "SELECT outcomeID, position, sampleID FROM outcomeValue WHERE typeof(sampleID) = 'text'"
            )
            var changes: [(outcomeID: Int64, position: Int, id: Data)] = []
            while let row = try rows.next() {
                let text: String = row[2]
                guard let uuid = UUID(uuidString: text) else { continue }
                changes.append((row[0], row[1], uuid.data))
            }
            let update = try db.makeStatement(
                sql: "UPDATE outcomeValue SET sampleID = ? WHERE outcomeID = ? AND position = ?"
            )
            for change in changes {
                update.setUncheckedArguments([change.id, change.outcomeID, change.position])
                try update.execute()
            }
        }
    }
}
