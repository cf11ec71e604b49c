import CareStore
import Foundation
import Insights

/// The alert rules evaluated before alerts are shown (`insights`, `report`, `alerts list`): that writes the
/// alerts it opens and closes, so on a store this user may only read they are shown as last evaluated, saying so.
enum AlertRefresh {
    /// Evaluates the rules from `from` to `to` (default: now), or notes that a read-only store keeps them as they are.
    static func evaluate(
        store: CareStore,
        path: String,
        from: Date,
        to: Date? = nil,
        now: Date = Date()
    ) async throws(CareStoreError) {
        guard !store.isReadOnly else {
            Output.error(
                "note: \(path) is read-only for you: alerts are shown as last evaluated (by a user who may write it)"
            )
            return
        }
        _ = try await AlertEngine.evaluate(store: store, from: from, to: to, now: now)
    }
}
