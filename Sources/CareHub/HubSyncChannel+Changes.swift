import BridgeCore
import BridgeFoundation
import CarePlan
import CareStore
import Foundation
import Logging

extension HubSyncChannel {
    /// Applies one change from the hub to the bridge's store (docs/hub.md, "What comes down").
    ///
    /// Every kind is idempotent, so a change applied again after a crash (before it was recorded) changes nothing:
    /// a plan already applied leaves its tasks unchanged, an acknowledged alert stays as it is, a decision on a
    /// quarantined reading is recorded in the transaction that applies it.
    /// - Returns: what became of it (applied, or refused with the reason); nil when the store failed and the change
    ///   must be tried again.
    func apply(_ change: HubChange) async -> HandledHubChange? {
        let body = change.body.objectValue ?? [:]
        var metadata: Logger.Metadata = [
            "hub.change": "\(change.sequence)", "kind": "\(change.kind.rawValue)", "patient": "\(change.patient)",
        ]
        let refusal: String?
        do throws(CareStoreError) {
            refusal =
                switch change.kind {
                case .plan: try await applyPlan(body, for: change)
                case .acknowledgement: try await acknowledge(body, for: change)
                case .quarantine: try await decide(body, for: change)
                }
        } catch {
            if error.code == .database {
                logger.warning(
                    "cannot apply a change from the hub yet",
                    metadata: metadata.merging(["error": "\(error)"]) { $1 }
                )
                return nil
            }
            refusal = error.message
        }
        if let refusal {
            metadata["reason"] = "\(refusal)"
            logger.warning("change from the hub refused", metadata: metadata)
        } else {
            logger.info("change from the hub applied", metadata: metadata)
        }
        return HandledHubChange(sequence: change.sequence, kind: change.kind.rawValue, refusal: refusal)
    }

    /// A plan file: parsed as `carebridge plan apply` parses it, applied for the change's patient.
    func applyPlan(_ body: JSONObject, for change: HubChange) async throws(CareStoreError) -> String? {
        guard let text = body["file"]?.stringValue else { return "the change carries no plan file" }
        let document: CarePlanDocument
        do {
            document = try CarePlanDocument.parse(
                Data(text.utf8),
                path: "plan change \(change.sequence) from the hub",
                bridgeZone: zone
            )
        } catch {
            return error.description
        }
        try await store.scoped(to: change.patient).applyPlan(document)
        return nil
    }

    /// An acknowledgement: applied only to the alert as the nurse saw it, still open. A withdrawal the bridge made
    /// first stands; an alert that tripped again on another reading needs its own acknowledgement.
    func acknowledge(_ body: JSONObject, for change: HubChange) async throws(CareStoreError) -> String? {
        guard case .int(let id)? = body["alert"], let person = body["by"]?.stringValue else {
            return "the acknowledgement names no alert or no person"
        }
        guard let alert = try await store.alert(id: Int64(id)), alert.patientID == change.patient else {
            return "no alert \(id) of patient \(change.patient) on this bridge"
        }
        if let withdrawn = alert.withdrawnAt {
            return "alert \(id) was withdrawn by the bridge at \(Timestamp.format(withdrawn, in: zone)) "
                + "(\(alert.withdrawnReason ?? "no reason given")) before the acknowledgement arrived: "
                + "the withdrawal stands"
        }
        if let acknowledged = alert.acknowledgedAt {
            guard alert.acknowledgedBy == person else {
                return "alert \(id) was acknowledged on the bridge by \(alert.acknowledgedBy ?? "someone") at "
                    + Timestamp.format(acknowledged, in: zone)
            }
            return nil
        }
        let seen = body["occurredAt"]?.stringValue.flatMap { try? Timestamp.parse($0, in: zone) }
        guard let seen, abs(seen.timeIntervalSince(alert.trip.occurredAt)) < 1 else {
            return "alert \(id) now stands for a reading at \(Timestamp.format(alert.trip.occurredAt, in: zone)), "
                + "not the one the acknowledgement saw: acknowledge it again"
        }
        let at = body["at"]?.stringValue.flatMap { ISO8601DateFormatter().date(from: $0) } ?? Date()
        try await store.acknowledgeAlert(id: alert.id, by: person, at: at)
        return nil
    }

    /// A quarantine decision: the reading is released or rejected with the care team's reason, once (the store
    /// records the change in the transaction that applies it); a reading the bridge decided on first keeps the
    /// bridge's decision.
    func decide(_ body: JSONObject, for change: HubChange) async throws(CareStoreError) -> String? {
        guard let verdict = body["decision"]?.stringValue.flatMap(QuarantineDecision.Verdict.init(rawValue:)),
            let text = body["sample"]?.stringValue, let id = UUID(uuidString: text)
        else { return "the decision is not a release or a rejection of a reading" }
        let decision = QuarantineDecision(
            sequence: change.sequence,
            sample: id,
            patient: change.patient,
            verdict: verdict,
            reason: body["reason"]?.stringValue ?? "decided at the hub",
            author: body["by"]?.stringValue
        )
        return try await store.applyQuarantineDecision(decision).refusal
    }
}
