import BridgeFoundation
import CareStore
public import Foundation
import Logging
import PostgresNIO

extension HubStore {
    /// The most changes one answer carries.
    public static let changesPerAnswer = 100

    /// The advisory lock every change's insert takes ("CBCHG" in ASCII): changes get their sequence in the order
    /// they commit, so a bridge reading after sequence N never misses a change that commits later with a lower one.
    static let changeLock: Int64 = 0x43_4243_4847

    // MARK: - Making changes

    /// Puts a plan file on the hub for `patient`: every bridge enrolled for the patient applies it (as `carebridge
    /// plan apply` does) at its next sync. The file is checked by the caller (``CarePlanDocument``'s parser).
    /// - Parameters:
    ///   - text: the plan file as it was written.
    ///   - by: who put it there.
    /// - Returns: the change's sequence and the bridges enrolled for the patient now.
    /// - Throws: ``HubError`` `.database`.
    public func publishPlan(
        patient: String,
        file text: String,
        by person: String?
    ) async throws(HubError) -> (sequence: Int64, bridges: [String]) {
        let sequence = try await addChange(
            .plan,
            patient: patient,
            bridge: nil,
            body: ["file": .string(text), "by": person.map { .string($0) } ?? .null],
            by: person
        )
        let bridges = try await database("cannot read the bridges of patient \(patient)") {
            try await client.query(
                """
                SELECT b.name FROM hub_bridge b JOIN hub_enrolment e ON e.bridge_id = b.id
                WHERE e.patient_id = \(patient) ORDER BY b.name
                """,
                logger: logger
            ).decode(String.self).collected()
        }
        logger.info(
            "plan put on the hub",
            metadata: ["patient": "\(patient)", "change": "\(sequence)", "bridges": "\(bridges)"]
        )
        return (sequence, bridges)
    }

    /// A nurse acknowledges an alert a bridge raised; the acknowledgement goes down to that bridge.
    ///
    /// The alert must be open as far as the hub knows (its newest change from the bridge is `raised`): one the
    /// bridge has already withdrawn or had acknowledged is refused here. If the bridge withdraws it (or it trips
    /// again on another reading) before the acknowledgement arrives, the bridge refuses it and says so; the
    /// withdrawal stands (docs/hub.md, "Authority").
    /// - Parameters:
    ///   - name: the bridge that raised the alert.
    ///   - id: the alert's id in that bridge's store.
    ///   - person: who acknowledges it.
    ///   - expected: the patient the alert must be of (the dashboard's page); nil: any.
    ///   - now: when (the bridge records it as the acknowledgement's time).
    /// - Returns: the change's sequence and the alert's patient.
    /// - Throws: ``HubError`` `.invalid` for an unknown or closed alert, or one of another patient than
    ///   `expected`; `.database`.
    public func acknowledgeAlert(
        bridge name: String,
        alert id: Int,
        by person: String,
        patient expected: String? = nil,
        at now: Date = Date()
    ) async throws(HubError) -> (sequence: Int64, patient: String) {
        let rows = try await database("cannot read alert \(id) of bridge \(name)") {
            try await client.query(
                """
                SELECT b.id, a.patient_id, a.body::text FROM hub_alert a JOIN hub_bridge b ON b.id = a.bridge_id
                WHERE b.name = \(name) AND (a.body -> 'alert' ->> 'id') = \(String(id))
                ORDER BY a.bridge_sequence DESC LIMIT 1
                """,
                logger: logger
            ).decode((Int64, String, String).self).collected()
        }
        guard let (bridgeID, patient, text) = rows.first, expected == nil || expected == patient,
            let body = try? JSONValue.parse(Array(text.utf8)).objectValue, let alert = body["alert"]?.objectValue
        else {
            throw HubError(.invalid, "bridge \(name) has sent no alert \(id) (see `carebridge hub alerts`)")
        }
        switch body["change"]?.stringValue {
        case "withdrawn":
            let at = alert["withdrawnAt"]?.stringValue ?? "?"
            throw HubError(
                .invalid,
                "alert \(id) of bridge \(name) was withdrawn by the bridge at \(at) "
                    + "(\(alert["withdrawnReason"]?.stringValue ?? "no reason given")): nothing to acknowledge"
            )
        case "acknowledged":
            throw HubError(
                .invalid,
                "alert \(id) of bridge \(name) is acknowledged already (by "
                    + "\(alert["acknowledgedBy"]?.stringValue ?? "someone") at \(alert["acknowledgedAt"]?.stringValue ?? "?"))"
            )
        default: break
        }
        let sequence = try await addChange(
            .acknowledgement,
            patient: patient,
            bridge: bridgeID,
            body: [
                "alert": .int(id), "occurredAt": alert["occurredAt"] ?? .null, "by": .string(person),
                "at": .string(ISO8601DateFormatter().string(from: now)),
            ],
            by: person
        )
        logger.info(
            "alert acknowledged on the hub",
            metadata: ["bridge": "\(name)", "patient": "\(patient)", "alert": "\(id)", "change": "\(sequence)"]
        )
        return (sequence, patient)
    }

    /// Inserts a change under ``changeLock``.
    func addChange(
        _ kind: HubChange.Kind,
        patient: String,
        bridge: Int64?,
        body: JSONObject,
        by person: String?
    ) async throws(HubError) -> Int64 {
        try await database("cannot store the \(kind.rawValue) change for patient \(patient)") {
            try await client.withTransaction(logger: logger) { connection in
                try await insertChange(kind, patient: patient, bridge: bridge, body: body, by: person, on: connection)
            }
        }
    }

    /// Inserts a change in the caller's transaction, taking ``changeLock`` (held to its end).
    func insertChange(
        _ kind: HubChange.Kind,
        patient: String,
        bridge: Int64?,
        body: JSONObject,
        by person: String?,
        on connection: PostgresConnection
    ) async throws -> Int64 {
        let text = JSONValue.object(body).serialized()
        try await connection.query("SELECT pg_advisory_xact_lock(\(Self.changeLock))", logger: logger)
        return try await connection.query(
            """
            INSERT INTO hub_change (kind, patient_id, bridge_id, body, created_by)
            VALUES (\(kind.rawValue), \(patient), \(bridge), \(text)::jsonb, \(person)) RETURNING sequence
            """,
            logger: logger
        ).decode(Int64.self).collected().first ?? 0
    }

    /// Queues again, for one bridge, the plans put on the hub for `patients` before its cursor (in the enrolment's
    /// transaction, when the bridge is newly enrolled for them): a bridge that synced for other patients already
    /// would otherwise never get them. Copies for the bridge alone, in the plans' order, under ``changeLock``;
    /// plans after its cursor it gets anyway, so only those up to the cursor are copied.
    func queuePlans(of patients: [String], for bridge: Int64, on connection: PostgresConnection) async throws {
        guard !patients.isEmpty else { return }
        try await connection.query("SELECT pg_advisory_xact_lock(\(Self.changeLock))", logger: logger)
        let copied = try await connection.query(
            """
            INSERT INTO hub_change (kind, patient_id, bridge_id, body, created_by)
            SELECT kind, patient_id, \(bridge), body, created_by FROM hub_change
            WHERE kind = \(HubChange.Kind.plan.rawValue) AND bridge_id IS NULL AND patient_id = ANY(\(patients))
                AND sequence <= (SELECT coalesce(change_cursor, 0) FROM hub_bridge WHERE id = \(bridge))
            ORDER BY sequence
            RETURNING sequence
            """,
            logger: logger
        ).decode(Int64.self).collected()
        if !copied.isEmpty {
            logger.info(
                "plans queued for a newly enrolled patient",
                metadata: ["patients": "\(patients.sorted())", "changes": "\(copied)"]
            )
        }
    }

    // MARK: - Sync

    /// Stores what a bridge did with changes (once per change) and its cursor; in the batch's transaction.
    func record(_ batch: SyncBatch, of bridge: HubBridge, on connection: PostgresConnection) async throws {
        for result in batch.results {
            try await connection.query(
                """
                INSERT INTO hub_change_result (bridge_id, change_sequence, kind, refused)
                SELECT \(bridge.id), sequence, \(result.kind), \(result.refusal) FROM hub_change
                WHERE sequence = \(result.sequence)
                ON CONFLICT DO NOTHING
                """,
                logger: logger
            )
            if let refusal = result.refusal {
                logger.warning(
                    "the bridge refused a change",
                    metadata: [
                        "bridge": "\(bridge.name)", "change": "\(result.sequence)", "kind": "\(result.kind)",
                        "reason": "\(refusal)",
                    ]
                )
            }
        }
        if let after = batch.changesAfter {
            try await connection.query(
                "UPDATE hub_bridge SET change_cursor = greatest(coalesce(change_cursor, 0), \(after)) WHERE id = \(bridge.id)",
                logger: logger
            )
        }
    }

    /// The changes for `bridge` after `cursor`, oldest first, at most ``changesPerAnswer``; and whether there are
    /// more.
    func changes(for bridge: HubBridge, after cursor: Int64) async throws(HubError) -> ([HubChange], Bool) {
        let patients = bridge.patients.sorted()
        let rows = try await database("cannot read the changes for bridge \(bridge.name)") {
            try await client.query(
                """
                SELECT sequence, kind, patient_id, body::text FROM hub_change
                WHERE sequence > \(cursor) AND patient_id = ANY(\(patients))
                    AND (bridge_id IS NULL OR bridge_id = \(bridge.id))
                ORDER BY sequence LIMIT \(Self.changesPerAnswer + 1)
                """,
                logger: logger
            ).decode((Int64, String, String, String).self).collected()
        }
        var changes: [HubChange] = []
        for (sequence, kind, patient, body) in rows.prefix(Self.changesPerAnswer) {
            guard let kind = HubChange.Kind(rawValue: kind), let body = try? JSONValue.parse(Array(body.utf8)) else {
                throw HubError(.database, "change \(sequence) at the hub is not one this hub writes")
            }
            changes.append(HubChange(sequence: sequence, kind: kind, patient: patient, body: body))
        }
        return (changes, rows.count > Self.changesPerAnswer)
    }
}
