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
            guard let patient = stored.patientID, wanted(patient), !stored.isUnassigned else { return nil }
            let sample = stored.sample
            return CareTeamOverviewRows.ReadingRow(
                patientID: patient,
                sampleID: sample.id.uuidString.lowercased(),
                type: sample.type.rawValue,
                value: sample.value,
                unit: sample.unit.rawValue,
                start: sample.start,
                comparator: sample.comparator?.rawValue
            )
        }
        let alerts = try await self.alerts().compactMap { alert -> CareTeamOverviewRows.AlertRow? in
            guard let patient = alert.patientID, wanted(patient) else { return nil }
            return CareTeamOverviewRows.AlertRow(
                patientID: patient,
                key: String(alert.id),
                state: CareTeamOverviewRows.AlertRow.State(rawValue: alert.state) ?? .open,
                severity: alert.trip.severity.rawValue,
                message: alert.trip.message,
                occurredAt: alert.trip.occurredAt
            )
        }
        return CareTeamOverviewRows(
            patients: people.map { CareTeamOverviewRows.PatientRow(id: $0.id, name: $0.name) },
            readings: readings,
            alerts: alerts
        )
    }
}
