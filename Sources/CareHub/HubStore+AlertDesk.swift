public import CareStore
public import Foundation

// MARK: - CareTeamAlertDesk

/// The dashboard's Acknowledge button: the same acknowledgement as `carebridge hub alerts acknowledge`, sent down
/// to the bridge that raised the alert, which applies it only to the alert as the nurse saw it (a withdrawal the
/// bridge made first stands).
extension HubStore: CareTeamAlertDesk {
    /// Acknowledges alert `key` (`BRIDGE/ID`, the overview's ``CareTeamOverviewRows/AlertRow/key``) of `patient`.
    /// - Returns: nil when the acknowledgement is on its way to the bridge; else why not (no such alert of this
    ///   patient, withdrawn by its bridge, acknowledged already), as the hub's refusal says it.
    public func acknowledgeAlert(
        patient: String,
        key: String,
        by person: String,
        at now: Date
    ) async throws(HubError) -> String? {
        guard let slash = key.lastIndex(of: "/"), let id = Int(key[key.index(after: slash)...]) else {
            return "There is no alert '\(key)' of this patient."
        }
        do {
            _ = try await acknowledgeAlert(
                bridge: String(key[..<slash]),
                alert: id,
                by: person,
                patient: patient,
                at: now
            )
            return nil
        } catch {
            guard error.code == .invalid else { throw error }
            return error.message.prefix(1).uppercased() + error.message.dropFirst() + "."
        }
    }
}
