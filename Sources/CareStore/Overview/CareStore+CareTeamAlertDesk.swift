public import Foundation

// MARK: - CareTeamAlertDesk

extension CareStore: CareTeamAlertDesk {
    /// Acknowledges the patient's alert `key` (its id in this store) at once; an alert acknowledged already stays
    /// as it was.
    public func acknowledgeAlert(
        patient: String,
        key: String,
        by person: String,
        at now: Date
    ) async throws(CareStoreError) -> String? {
        let scoped = scoped(to: patient)
        guard let id = Int64(key), let alert = try await scoped.alert(id: id), alert.patientID == patient else {
            return "There is no alert '\(key)' of this patient."
        }
        if alert.withdrawnAt != nil {
            return "That alert was withdrawn: nothing to acknowledge."
        }
        try await scoped.acknowledgeAlert(id: id, by: person, at: now)
        return nil
    }
}
