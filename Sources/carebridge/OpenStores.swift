import CareStore
import Synchronization

/// The stores this command opened, released before the process exits once their pending work has finished
/// (``CareStore/finishPendingAccess()``): the last connection to close checkpoints the WAL into the store file and
/// removes it, so the next reader, perhaps a user who may only read the store, finds a plain file.
final class OpenStores: Sendable {
    static let shared = OpenStores()

    private let stores = Mutex<[CareStore]>([])

    func add(_ store: CareStore) {
        stores.withLock { $0.append(store) }
    }

    /// Finishes and releases every store opened so far; one that cannot be finished is reported, never lost (SQLite
    /// finishes the checkpoint at the next open).
    func closeAll() {
        let open = stores.withLock { stores in
            defer { stores.removeAll() }
            return stores
        }
        for store in open {
            do {
                try store.finishPendingAccess()
            } catch {
                Output.error("warning: \(error.message)")
            }
        }
    }
}
