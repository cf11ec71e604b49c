public import Foundation

/// What the care team's overview reads from a store: the patients, their recent readings and the states of their
/// alerts, as rows. The SQLite store of one bridge (``CareStore``) and the hub's PostgreSQL store (every bridge's
/// patients) both answer it; what the overview shows from the rows (the latest reading of each type, which alerts
/// are open, who comes first) is decided once, by ``CareTeamOverview``.
public protocol CareTeamOverviewSource: Sendable {
    /// The rows of the overview.
    /// - Parameters:
    ///   - patients: only these patients (nil: every patient the store holds).
    ///   - since: readings measured at or after this instant (older ones do not show as latest).
    /// - Returns: the patients, their usable readings since `since` and every state of their alerts.
    /// - Throws: the store's own error (``CareStoreError``, or the hub's), with what could not be read.
    func overviewRows(patients: Set<String>?, since: Date) async throws -> CareTeamOverviewRows
}
