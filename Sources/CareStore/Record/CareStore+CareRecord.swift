import BridgeCore
import Foundation

// MARK: - CareRecordSource

extension CareStore: CareRecordSource {
    /// The patient's record from this bridge's store: its live readings (usable ones and, apart, quarantined ones)
    /// and the recorded outcomes of its events on `days` in the bridge's zone, and its alerts' current states.
    public func recordRows(patient: String, days: ClosedRange<String>) async throws(CareStoreError) -> CareRecordRows {
        let zone = bridgeZone
        // A margin of two days either side covers every zone's offset; the day each fact falls on decides.
        guard let first = try? Timestamp.parse(days.lowerBound, in: zone),
            let last = try? Timestamp.parse(days.upperBound, in: zone)
        else {
            throw CareStoreError(.invalidQuery, "days \(days) are not yyyy-MM-dd")
        }
        let from = first.addingTimeInterval(-2 * 86_400)
        let to = last.addingTimeInterval(3 * 86_400)
        let scoped = scoped(to: patient)
        let samples = try await scoped.samples(matching: SampleQuery(from: from, to: to, quarantine: .included))
        var readings: [CareRecordRows.Reading] = []
        var quarantined: [CareRecordRows.Reading] = []
        for stored in samples {
            guard let row = Self.readingRow(stored) else { continue }
            let day = CareRecordRows.day(of: row.start, in: zone)
            guard days.contains(day) else { continue }
            if let reason = stored.sample.quarantineReason {
                quarantined.append(CareRecordRows.Reading(reading: row, day: day, quarantine: reason))
            } else {
                readings.append(CareRecordRows.Reading(reading: row, day: day))
            }
        }
        let events = try await scoped.events(matching: EventQuery(from: from, to: to)).filter {
            days.contains(CareRecordRows.day(of: $0.start, in: zone))
        }
        let outcomes = events.compactMap { event -> CareRecordRows.Outcome? in
            guard let outcome = event.outcome else { return nil }
            return CareRecordRows.Outcome(
                taskID: event.taskID,
                taskVersion: event.key.taskVersion.uuidString.lowercased(),
                occurrence: event.occurrence,
                day: CareRecordRows.day(of: event.start, in: zone),
                values: outcome.values.map { $0.value.isFinite ? $0.value : nil }
            )
        }
        let alerts = try await self.alerts().filter { $0.patientID == patient }.compactMap(Self.alertRow)
        return CareRecordRows(
            readings: readings,
            quarantined: quarantined,
            outcomes: outcomes,
            events: events.map { CareRecordRows.Event($0, zone: zone) },
            alerts: alerts
        )
    }
}
