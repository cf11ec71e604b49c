import BridgeCore
import CarePlan
public import Foundation
import GRDB

// MARK: - CareTeamOverviewSource

extension CareStore: CareTeamOverviewSource {
    /// The overview's rows from this bridge's store: the live patients, their usable readings since `since`
    /// (quarantined, deleted and unassigned ones left out) and each alert's current state.
    public func overviewRows(patients: Set<String>?, since: Date) async throws(CareStoreError) -> CareTeamOverviewRows {
        let wanted = { (id: String?) -> Bool in id.map { patients?.contains($0) ?? true } ?? false }
        let people = try await self.patients().filter { wanted($0.id) }
        let query = SampleQuery(from: since)
        let limit = Int(Int32.max)
        let samples = try await read { db -> [StoredSample] in
            let (statement, typeCode) = try samplePageStatement(db, matching: query, after: nil, limit: limit)
            guard let statement else { return [] }
            var reader = try SampleRowReader(db)
            return try reader.samples(
                db,
                sql: statement.sql,
                arguments: statement.arguments,
                limit: limit,
                typeCode: typeCode
            )
        }
        let readings = samples.compactMap { stored -> CareTeamOverviewRows.ReadingRow? in
            guard let patient = stored.patientID, wanted(patient) else { return nil }
            return Self.readingRow(stored)
        }
        let alerts = try await self.alerts().compactMap { alert -> CareTeamOverviewRows.AlertRow? in
            guard let patient = alert.patientID, wanted(patient) else { return nil }
            return Self.alertRow(alert)
        }
        return CareTeamOverviewRows(
            patients: people.map { CareTeamOverviewRows.PatientRow(id: $0.id, name: $0.name) },
            readings: readings,
            alerts: alerts
        )
    }

    /// A stored sample as the care team reads it; nil for one in the unassigned inbox or of no patient.
    static func readingRow(_ stored: StoredSample) -> CareTeamOverviewRows.ReadingRow? {
        guard let patient = stored.patientID, !stored.isUnassigned else { return nil }
        let sample = stored.sample
        return CareTeamOverviewRows.ReadingRow(
            patientID: patient,
            sampleID: sample.id.uuidString.lowercased(),
            type: sample.type.rawValue,
            value: sample.value,
            unit: sample.unit.rawValue,
            start: sample.start,
            comparator: sample.comparator?.rawValue,
            flags: SampleScreening.flags(of: sample)
        )
    }

    /// An alert's current state as the care team reads it; nil for an alert of no patient.
    static func alertRow(_ alert: Alert) -> CareTeamOverviewRows.AlertRow? {
        guard let patient = alert.patientID else { return nil }
        return CareTeamOverviewRows.AlertRow(
            patientID: patient,
            key: String(alert.id),
            state: CareTeamOverviewRows.AlertRow.State(rawValue: alert.state) ?? .open,
            severity: alert.trip.severity.rawValue,
            message: alert.trip.message,
            occurredAt: alert.trip.occurredAt
        )
    }
}
