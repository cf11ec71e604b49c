public import Foundation

/// Where the care team acknowledges a patient's open alert from the overview's pages: a bridge's store
/// (``CareStore``) acknowledges it at once; the hub's PostgreSQL store sends the acknowledgement down to the bridge
/// that raised the alert, which owns its raising and withdrawal (docs/hub.md, "Authority").
public protocol CareTeamAlertDesk: Sendable {
    /// Acknowledges one open alert of `patient` as `person`.
    /// - Parameters:
    ///   - patient: the patient the page is about; an alert of another patient is refused.
    ///   - key: the alert's ``CareTeamOverviewRows/AlertRow/key``.
    ///   - person: who acknowledges it (the signed-in user's id).
    ///   - at: when.
    /// - Returns: nil when it is acknowledged (or, at the hub, on its way to its bridge); else why not, as a
    ///   sentence for the person (no such alert of this patient, withdrawn by its bridge, acknowledged already).
    /// - Throws: the store's own error (``CareStoreError``, or the hub's) when it cannot be read or written.
    func acknowledgeAlert(patient: String, key: String, by person: String, at: Date) async throws -> String?
}

/// What the care team's pages read and do, on either engine: the overview, a patient's record day by day, and
/// acknowledging an alert.
public typealias CareTeamSource = CareRecordSource & CareTeamAlertDesk & CareTeamOverviewSource
