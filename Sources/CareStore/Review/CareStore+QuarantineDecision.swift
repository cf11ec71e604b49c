import BridgeCore
public import Foundation
import GRDB

extension CareStore {
    /// Applies a decision made at the hub on a quarantined reading and records it as handled, in one transaction:
    /// it is applied exactly once, however often the change comes down (a change already handled answers as it
    /// was handled, and changes nothing).
    ///
    /// The first decision stands: a reading the bridge released or deleted before the decision arrived is left
    /// as it is and the decision is refused, saying who decided what on the bridge, and when.
    /// - Returns: what became of the change (applied, or refused and why), as recorded.
    /// - Throws: ``CareStoreError`` `.database`; nothing is recorded then, and the change is tried again.
    @discardableResult
    public func applyQuarantineDecision(
        _ decision: QuarantineDecision,
        at date: Date = Date()
    ) async throws(CareStoreError) -> HandledHubChange {
        let zone = bridgeZone
        let kind = "quarantine"
        let id = decision.sample.uuidString.lowercased()
        let reason = decision.reason.trimmingCharacters(in: .whitespacesAndNewlines)
        let (handled, changes) = try await write { db -> (HandledHubChange, [StoreChange]) in
            if let row = try Row.fetchOne(
                db,
                sql: "SELECT kind, reason FROM hubChange WHERE sequence = ?",
                arguments: [decision.sequence]
            ) {
                return (HandledHubChange(sequence: decision.sequence, kind: row["kind"], refusal: row["reason"]), [])
            }
            var changes: [StoreChange] = []
            let refusal: String?
            if reason.isEmpty {
                refusal = "the decision on \(id) gives no reason"
            } else if let done = try Self.decide(db, decision, reason: reason, at: date, zone: zone) {
                changes = done
                refusal = nil
            } else {
                refusal = try Self.refusal(db, decision, zone: zone)
            }
            try db.execute(
                sql: """
                    INSERT INTO hubChange (sequence, kind, outcome, reason, handledAt) VALUES (?, ?, ?, ?, ?)
                    """,
                arguments: [
                    decision.sequence, kind, refusal == nil ? "applied" : "refused", refusal,
                    date.timeIntervalSince1970,
                ]
            )
            return (HandledHubChange(sequence: decision.sequence, kind: kind, refusal: refusal), changes)
        }
        broadcaster.publish(changes)
        return handled
    }

    /// Releases or deletes the reading; nil when it is not a live quarantined reading of the decision's patient.
    private static func decide(
        _ db: Database,
        _ decision: QuarantineDecision,
        reason: String,
        at date: Date,
        zone: TimeZone
    ) throws -> [StoreChange]? {
        var reader = try SampleRowReader(db)
        guard let row = try SampleTable.row(db, id: decision.sample, reader: &reader), row.stored.deletedDate == nil,
            row.stored.sample.isQuarantined, row.stored.patientID == decision.patient
        else { return nil }
        switch decision.verdict {
        case .release:
            return try releaseSample(
                db,
                id: decision.sample,
                reason: reason,
                at: date,
                by: decision.author,
                zone: zone,
                scope: decision.patient
            )?.1
        case .reject:
            return try deleteSample(
                db,
                id: decision.sample,
                at: date,
                reason: reason,
                by: decision.author,
                zone: zone,
                scope: decision.patient
            )
        }
    }

    /// Why a decision cannot be applied: the decision the bridge made first (from the review list), or that the
    /// bridge holds no such reading of the patient in quarantine.
    private static func refusal(_ db: Database, _ decision: QuarantineDecision, zone: TimeZone) throws -> String {
        let id = decision.sample.uuidString.lowercased()
        let row = try Row.fetchOne(
            db,
            sql: """
                SELECT action, reason, author, reviewedAt FROM sampleReview
                WHERE sampleID = ? AND action IN ('release', 'delete') ORDER BY reviewedAt DESC, id DESC LIMIT 1
                """,
            arguments: [decision.sample.data]
        )
        var reader = try SampleRowReader(db)
        let stored = try SampleTable.row(db, id: decision.sample, reader: &reader)?.stored
        guard let row, let stored, stored.patientID == decision.patient else {
            return "no quarantined reading \(id) of patient \(decision.patient) on this bridge"
        }
        let action: String = row["action"] == "release" ? "released" : "deleted"
        let at = Timestamp.format(Date(timeIntervalSince1970: row["reviewedAt"]), in: zone)
        let author: String? = row["author"]
        let because: String? = row["reason"]
        return "reading \(id) was \(action) on the bridge by \(author ?? "the command line") at \(at)"
            + (because.map { " (\($0))" } ?? "") + " before the hub's \(decision.verdict.rawValue) arrived: "
            + "the bridge's decision stands"
    }
}
