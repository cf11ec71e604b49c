import Foundation
import GRDB

/// Tells whether anything was committed to the store file since the last look, by this process or another
/// (SQLite's `PRAGMA data_version` on a connection of its own): the care app follows a `replay` or the daemon
/// writing to the same store this way, since SQLite has no cross-process notification.
public final class StoreChangeMonitor: Sendable {
    private let queue: DatabaseQueue

    init(path: String) throws(CareStoreError) {
        var configuration = Configuration()
        configuration.readonly = true
        configuration.label = "CareBridge.changeMonitor"
        do {
            queue = try DatabaseQueue(path: path, configuration: configuration)
        } catch {
            throw CareStoreError(.database, "cannot watch the store at \(path) for changes: \(error)", cause: error)
        }
    }

    /// A number that differs from the previous call's when another connection committed in between.
    public func version() async throws(CareStoreError) -> Int {
        do {
            return try await queue.read { db in try Int.fetchOne(db, sql: "PRAGMA data_version") ?? 0 }
        } catch {
            throw CareStoreError(.database, "cannot read the store's change counter: \(error)", cause: error)
        }
    }
}

extension CareStore {
    /// A monitor of this store's file (see ``StoreChangeMonitor``). Not async: it only opens a read-only connection
    /// (no transaction, so no lock to wait for), once, when the care app is built; reading it is async.
    /// - Throws: ``CareStoreError`` `.database` for a store that is not a file.
    public func changeMonitor() throws(CareStoreError) -> StoreChangeMonitor {
        try StoreChangeMonitor(path: databaseWriter.path)
    }
}
