import BridgeFoundation
public import CareStore
public import Foundation
import Logging
import PostgresNIO

extension HubStore {
    /// The care team decides on a reading a bridge sent in quarantine: released into the record or rejected. The
    /// decision goes down to that bridge, which applies it once (docs/hub.md, "Authority").
    ///
    /// One decision per reading: the hub refuses a second one, and one on a reading the bridge has decided on
    /// already (released: it is in the record; deleted) — the bridge's decision stands.
    /// - Returns: the change's sequence.
    /// - Throws: ``HubError`` `.invalid` saying why it cannot be decided; `.database`.
    public func decideQuarantined(
        bridge name: String,
        patient: String,
        sample: UUID,
        verdict: QuarantineDecision.Verdict,
        reason: String,
        by person: String
    ) async throws(HubError) -> Int64 {
        let id = sample.uuidString.lowercased()
        let reason = reason.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !reason.isEmpty, !person.isEmpty else {
            throw HubError(.invalid, "a decision on reading \(id) needs a reason and a person")
        }
        // A refusal is returned, not thrown, from the transaction (the driver wraps what a transaction throws).
        let outcome: (Int64?, String?) = try await database("cannot decide on reading \(id) of bridge \(name)") {
            try await client.withTransaction(logger: logger) { connection -> (Int64?, String?) in
                let rows = try await connection.query(
                    """
                    SELECT q.bridge_id, q.decision, q.decided_by, q.decided_at, q.decision_change,
                        EXISTS (SELECT 1 FROM hub_sample s WHERE s.bridge_id = q.bridge_id AND s.id = q.id),
                        EXISTS (SELECT 1 FROM hub_retraction r WHERE r.bridge_id = q.bridge_id AND r.id = q.id)
                    FROM hub_quarantine q JOIN hub_bridge b ON b.id = q.bridge_id
                    WHERE b.name = \(name) AND q.id = \(id) AND q.patient_id = \(patient)
                    FOR UPDATE OF q
                    """,
                    logger: logger
                ).decode((Int64, String?, String?, Date?, Int64?, Bool, Bool).self).collected()
                guard let (bridgeID, decided, by, at, change, released, rejected) = rows.first else {
                    return (
                        Int64?.none,
                        "bridge \(name) has sent no quarantined reading \(id) of patient \(patient) "
                            + "(see `carebridge hub samples list`)"
                    )
                }
                if released || rejected {
                    return (
                        nil,
                        "reading \(id) was \(released ? "released" : "deleted") on bridge \(name) before: "
                            + "the bridge's decision stands"
                    )
                }
                if let decided {
                    let when = at.map { ISO8601DateFormatter().string(from: $0) } ?? "?"
                    return (
                        nil,
                        "reading \(id) of bridge \(name) is decided already: \(decided) by \(by ?? "someone") at "
                            + "\(when) (change \(change ?? 0))"
                    )
                }
                let sequence = try await insertChange(
                    .quarantine,
                    patient: patient,
                    bridge: bridgeID,
                    body: [
                        "sample": .string(id), "decision": .string(verdict.rawValue), "reason": .string(reason),
                        "by": .string(person),
                    ],
                    by: person,
                    on: connection
                )
                try await connection.query(
                    """
                    UPDATE hub_quarantine SET decision = \(verdict.rawValue), decision_reason = \(reason),
                        decided_by = \(person), decided_at = now(), decision_change = \(sequence)
                    WHERE bridge_id = \(bridgeID) AND id = \(id)
                    """,
                    logger: logger
                )
                return (sequence, String?.none)
            }
        }
        guard let sequence = outcome.0 else { throw HubError(.invalid, outcome.1 ?? "reading \(id) cannot be decided") }
        logger.info(
            "quarantine decision on the hub",
            metadata: [
                "bridge": "\(name)", "patient": "\(patient)", "decision": "\(verdict.rawValue)",
                "change": "\(sequence)",
            ]
        )
        return sequence
    }

    /// The readings bridges sent in quarantine, by bridge and arrival, with where each stands.
    /// - Parameters:
    ///   - patients: only these patients' (nil: every patient's).
    ///   - openOnly: only those still out of the record and undecided by their bridge.
    public func quarantined(
        patients: Set<String>? = nil,
        openOnly: Bool = false
    ) async throws(HubError) -> [HubQuarantinedReading] {
        let every = patients == nil
        let wanted = (patients ?? []).sorted()
        let rows = try await database("cannot read the quarantined readings") {
            try await client.query(
                """
                SELECT b.name, q.patient_id, q.id, q.body::text, q.received_at, q.decision, q.decision_reason,
                    q.decided_by, q.decided_at, q.decision_change,
                    EXISTS (SELECT 1 FROM hub_sample s WHERE s.bridge_id = q.bridge_id AND s.id = q.id),
                    EXISTS (SELECT 1 FROM hub_retraction r WHERE r.bridge_id = q.bridge_id AND r.id = q.id),
                    (SELECT c.refused FROM hub_change_result c
                        WHERE c.bridge_id = q.bridge_id AND c.change_sequence = q.decision_change)
                FROM hub_quarantine q JOIN hub_bridge b ON b.id = q.bridge_id
                WHERE \(every) OR q.patient_id = ANY(\(wanted))
                ORDER BY b.name, q.arrival
                """,
                logger: logger
            ).decode(
                (
                    String, String, String, String, Date, String?, String?, String?, Date?, Int64?, Bool, Bool,
                    String?
                ).self
            ).collected()
        }
        return rows.compactMap { row in
            let (bridge, patient, id, body, received, verdict, reason, by, at, change, released, rejected, refused) =
                row
            let decision = verdict.flatMap(QuarantineDecision.Verdict.init(rawValue:)).map {
                HubQuarantinedReading.Decision(
                    verdict: $0,
                    reason: reason ?? "",
                    by: by ?? "",
                    at: at ?? received,
                    change: change ?? 0
                )
            }
            let state: HubQuarantinedReading.State =
                if let refused {
                    .refused(refused)
                } else if released {
                    .released
                } else if rejected {
                    .rejected
                } else if let decision {
                    .sent(decision.verdict)
                } else {
                    .held
                }
            let reading = HubQuarantinedReading(
                bridge: bridge,
                patient: patient,
                id: id,
                sample: (try? JSONValue.parse(Array(body.utf8))) ?? .null,
                receivedAt: received,
                state: state,
                decision: decision
            )
            return !openOnly || reading.isOpen ? reading : nil
        }
    }
}
