/// What a patient's record reads from a store, day by day: the readings measured on those days, the outcomes of
/// the events on them with the task version each belongs to, and the states of the patient's alerts. The SQLite
/// store of one bridge (``CareStore``) and the hub's PostgreSQL store (what the bridges sent) both answer it, and
/// `Tests/CareHubTests/CareRecordTests.swift` holds both to the same answers; the rules (which day a time falls
/// on, which alert state is the newest) are decided once, in ``CareRecordRows`` and ``CareTeamOverview``.
public protocol CareRecordSource: Sendable {
    /// The patient's record on these local days (`yyyy-MM-dd`, both ends included).
    /// - Returns: usable readings (not deleted, retracted or quarantined) and, apart, the quarantined ones still
    ///   held, each on the day it was measured where it was measured; recorded outcomes of events on those days;
    ///   every state of the patient's alerts.
    /// - Throws: the store's own error (``CareStoreError``, or the hub's), with what could not be read.
    func recordRows(patient: String, days: ClosedRange<String>) async throws -> CareRecordRows
}
