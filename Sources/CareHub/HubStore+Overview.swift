import BridgeFoundation
public import CareStore
public import Foundation
import PostgresNIO

// MARK: - CareTeamOverviewSource

/// The care team's overview across every bridge's patients: the same rows a bridge's store gives, read from what
/// the bridges sent, so ``CareTeamOverview``'s rules decide what shows on both.
extension HubStore: CareTeamOverviewSource {
    /// The enrolled patients (with the bridges they are enrolled on), their samples measured since `since` that no
    /// bridge retracted, and every alert change received (its `arrival` orders them; an alert is keyed by its bridge
    /// and its number).
    public func overviewRows(patients: Set<String>?, since: Date) async throws(HubError) -> CareTeamOverviewRows {
        let every = patients == nil
        let wanted = (patients ?? []).sorted()
        return try await database("cannot read the care team's overview") {
            let people = try await client.query(
                """
                SELECT e.patient_id, array_agg(DISTINCT b.name ORDER BY b.name)
                FROM hub_enrolment e JOIN hub_bridge b ON b.id = e.bridge_id
                WHERE \(every) OR e.patient_id = ANY(\(wanted))
                GROUP BY e.patient_id ORDER BY e.patient_id
                """,
                logger: logger
            ).decode((String, [String]).self).collected()
            let enrolled = Set(people.map(\.0))
            let samples = try await client.query(
                """
                SELECT s.patient_id, s.id, (s.body->>'start')::timestamptz, s.body::text
                FROM hub_sample s
                WHERE s.retracted_at IS NULL AND (s.body->>'start')::timestamptz >= \(since)
                    AND s.patient_id = ANY(\(enrolled.sorted()))
                """,
                logger: logger
            ).decode((String, String, Date, String).self).collected()
            let alerts = try await alertRows(of: enrolled.sorted())
            return CareTeamOverviewRows(
                patients: people.map { CareTeamOverviewRows.PatientRow(id: $0.0, name: $0.0, homes: $0.1) },
                readings: samples.compactMap { patient, id, start, text in
                    Self.reading(patient: patient, id: id, start: start, body: text)
                },
                alerts: alerts
            )
        }
    }

    /// Every alert change received for `patients`, as the states of their alerts (keyed by bridge and number,
    /// ordered by arrival).
    func alertRows(of patients: [String]) async throws -> [CareTeamOverviewRows.AlertRow] {
        try await client.query(
            """
            SELECT a.patient_id, b.name, a.arrival, (a.body->'alert'->>'occurredAt')::timestamptz, a.body::text
            FROM hub_alert a JOIN hub_bridge b ON b.id = a.bridge_id
            WHERE a.patient_id = ANY(\(patients))
            """,
            logger: logger
        ).decode((String, String, Int64, Date, String).self).collected().compactMap {
            patient,
            bridge,
            arrival,
            occurred,
            text in
            Self.alert(patient: patient, bridge: bridge, arrival: arrival, occurredAt: occurred, body: text)
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
            comparator: object["comparator"]?.stringValue
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
