import BridgeFoundation
public import CareStore
public import Foundation
import PostgresNIO

// MARK: - CareTeamOverviewSource

/// The care team's overview across every bridge's patients: the same rows a bridge's store gives, read from what
/// the bridges sent, so ``CareTeamOverview``'s rules decide what shows on both.
extension HubStore: CareTeamOverviewSource {
    /// The enrolled patients (with the bridges they are enrolled on, and the name a bridge sent last, else the id), their samples measured since `since` that no
    /// bridge retracted, and every alert change received (its `arrival` orders them; an alert is keyed by its bridge
    /// and its number).
    public func overviewRows(patients: Set<String>?, since: Date) async throws(HubError) -> CareTeamOverviewRows {
        let every = patients == nil
        let wanted = (patients ?? []).sorted()
        return try await database("cannot read the care team's overview") {
            let people = try await client.query(
                """
                SELECT e.patient_id, array_agg(DISTINCT b.name ORDER BY b.name),
                    (array_agg(e.patient_name ORDER BY e.patient_named_at DESC)
                        FILTER (WHERE e.patient_name IS NOT NULL))[1]
                FROM hub_enrolment e JOIN hub_bridge b ON b.id = e.bridge_id
                WHERE \(every) OR e.patient_id = ANY(\(wanted))
                GROUP BY e.patient_id ORDER BY e.patient_id
                """,
                logger: logger
            ).decode((String, [String], String?).self).collected()
            let enrolled = Set(people.map(\.0))
            let samples = try await client.query(
                Self.newestReadings(of: enrolled.sorted(), since: since),
                logger: logger
            )
            .decode((String, String, Date, String).self).collected()
            let alerts = try await alertRows(of: enrolled.sorted())
            return CareTeamOverviewRows(
                patients: people.map { CareTeamOverviewRows.PatientRow(id: $0.0, name: $0.2 ?? $0.0, homes: $0.1) },
                readings: samples.compactMap { patient, id, start, text in
                    Self.reading(patient: patient, id: id, start: start, body: text)
                },
                alerts: alerts
            )
        }
    }

    /// The two newest readings of each type per patient measured since `since` that no bridge retracted (all
    /// ``CareTeamOverview`` reads: the latest and its trend), newest first; ties go to the higher id, as the
    /// overview breaks them. The types of each patient are found by skipping through `hub_sample_latest`
    /// (`v9-overview-index`) one type at a time, and each type's two rows are read off the same index: the query
    /// touches a few index pages per patient and type, however many readings the hub holds
    /// (`docs/hub-dashboard-queries.md` has the plans).
    static func newestReadings(of patients: [String], since: Date) -> PostgresQuery {
        """
        WITH RECURSIVE kinds (patient_id, type) AS (
            SELECT p.id, (SELECT min(s.body->>'type') FROM hub_sample s
                WHERE s.patient_id = p.id AND s.retracted_at IS NULL)
            FROM unnest(\(patients)::text[]) AS p (id)
            UNION ALL
            SELECT k.patient_id, (SELECT min(s.body->>'type') FROM hub_sample s
                WHERE s.patient_id = k.patient_id AND s.retracted_at IS NULL AND s.body->>'type' > k.type)
            FROM kinds k WHERE k.type IS NOT NULL
        )
        SELECT s.patient_id, s.id, s.measured, s.body::text
        FROM kinds k CROSS JOIN LATERAL (
            SELECT s.patient_id, s.id, hub_instant(s.body->>'start') AS measured, s.body FROM hub_sample s
            WHERE s.patient_id = k.patient_id AND s.body->>'type' = k.type AND s.retracted_at IS NULL
                AND hub_instant(s.body->>'start') >= \(since)
                AND jsonb_typeof(s.body->'value') = 'number' AND s.body ? 'unit'
            ORDER BY hub_instant(s.body->>'start') DESC, s.id DESC LIMIT 2
        ) s
        """
    }

    /// Every alert change received for `patients`, as the states of their alerts (keyed by bridge and number,
    /// ordered by arrival).
    func alertRows(of patients: [String]) async throws -> [CareTeamOverviewRows.AlertRow] {
        try await client.query(
            """
            SELECT a.patient_id, b.name, a.arrival, (a.body->'alert'->>'occurredAt')::timestamptz, a.body::text,
                (SELECT c.body->>'at' FROM hub_change c
                 WHERE c.kind = \(HubChange.Kind.acknowledgement.rawValue) AND c.bridge_id = a.bridge_id
                     AND c.body->>'alert' = a.body->'alert'->>'id'
                     AND NOT EXISTS (SELECT 1 FROM hub_change_result r
                                     WHERE r.bridge_id = c.bridge_id AND r.change_sequence = c.sequence)
                 ORDER BY c.sequence DESC LIMIT 1)
            FROM hub_alert a JOIN hub_bridge b ON b.id = a.bridge_id
            WHERE a.patient_id = ANY(\(patients))
            """,
            logger: logger
        ).decode((String, String, Int64, Date, String, String?).self).collected().compactMap {
            patient,
            bridge,
            arrival,
            occurred,
            text,
            sent in
            var row = Self.alert(patient: patient, bridge: bridge, arrival: arrival, occurredAt: occurred, body: text)
            // An acknowledgement made here that its bridge has not answered yet: sent, waiting.
            row?.acknowledgementSentAt = sent.flatMap { ISO8601DateFormatter().date(from: $0) }
            return row
        }
    }

    /// A sample's body (`samples --json`) as a reading; nil when it has no type, value or unit.
    static func reading(patient: String, id: String, start: Date, body: String) -> CareTeamOverviewRows.ReadingRow? {
        guard let object = (try? JSONValue.parse(Array(body.utf8)))?.objectValue,
            let type = object["type"]?.stringValue, let value = object["value"]?.doubleValue,
            let unit = object["unit"]?.stringValue
        else { return nil }
        return CareTeamOverviewRows.ReadingRow(
            patientID: patient,
            sampleID: id,
            type: type,
            value: value,
            unit: unit,
            start: start,
            comparator: object["comparator"]?.stringValue,
            flags: object["statusFlags"]?.arrayValue?.compactMap(\.stringValue) ?? []
        )
    }

    /// An alert change's body (`{"change", "alert"}`) as the alert's state at that change.
    static func alert(
        patient: String,
        bridge: String,
        arrival: Int64,
        occurredAt: Date,
        body: String
    ) -> CareTeamOverviewRows.AlertRow? {
        guard let object = (try? JSONValue.parse(Array(body.utf8)))?.objectValue,
            let change = object["change"]?.stringValue, let alert = object["alert"]?.objectValue,
            let number = alert["id"]?.doubleValue
        else { return nil }
        let state: CareTeamOverviewRows.AlertRow.State =
            switch change {
            case "acknowledged": .acknowledged
            case "withdrawn": .withdrawn
            default: .open
            }
        return CareTeamOverviewRows.AlertRow(
            patientID: patient,
            key: "\(bridge)/\(Int64(number))",
            state: state,
            severity: alert["severity"]?.stringValue ?? "",
            message: alert["message"]?.stringValue ?? "",
            occurredAt: occurredAt,
            order: arrival
        )
    }
}
