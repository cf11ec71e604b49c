import BridgeCore
import CarePlan
import CareStore
import CareWeb
import Foundation
import Logging

/// The care app benchmark's ward: `patients` patients each with a 20-task plan (10 daily doses in two-hour
/// windows, 5 daily questions, 5 daily measurements), users `nurse` (linked to all) and `anna` (the first
/// patient), `days` days of completed doses and answers for anna and a week of heart rate at one reading a minute.
enum CareAppFixtureStore {
    static func build(path: String, patients: Int, days: Int, zone: TimeZone, logger: Logger) async throws {
        let store = try CareStore(path: path, bridgeZone: zone, logger: logger)
        let now = Date()
        let yearAgo = now.addingTimeInterval(-366 * 86400)
        let start = WallClockTime(yearAgo, in: zone).startOfDay
        let startText = String(format: "%04d-%02d-%02dT00:00:00", start.year, start.month, start.day)
        var ids: [String] = []
        for index in 0..<patients {
            let id = index == 0 ? "anna" : "bed-\(index)"
            ids.append(id)
            var tasks: [String] = []
            for dose in 0..<10 {
                tasks.append(
                    """
                    {"id": "\(id)-dose-\(dose)", "title": "Dose \(dose)", "kind": "intervention",
                     "schedule": {"timeZone": "Europe/Berlin", "elements": [
                       {"start": "\(startText.prefix(10))T\(String(format: "%02d", 6 + dose)):00:00", "interval": {"days": 1}, "duration": 7200}]}}
                    """
                )
            }
            for question in 0..<5 {
                tasks.append(
                    """
                    {"id": "\(id)-question-\(question)", "title": "Question \(question)", "kind": "assessment",
                     "answer": {"type": "scale", "min": 0, "max": 10},
                     "schedule": {"timeZone": "Europe/Berlin", "elements": [
                       {"start": "\(startText)", "interval": {"days": 1}, "duration": "allDay"}]}}
                    """
                )
            }
            let types = ["bodyMass", "heartRate", "bodyTemperature", "oxygenSaturation", "bloodGlucose"]
            let units = ["kg", "/min", "Cel", "%", "mg/dL"]
            for measure in 0..<5 {
                tasks.append(
                    """
                    {"id": "\(id)-measure-\(measure)", "title": "Measure \(types[measure])", "kind": "assessment",
                     "schedule": {"timeZone": "Europe/Berlin", "elements": [
                       {"start": "\(startText)", "interval": {"days": 1}, "duration": "allDay"}]},
                     "linkage": {"type": "\(types[measure])", "unit": "\(units[measure])", "aggregation": "last"}}
                    """
                )
            }
            let plan = """
                {"patient": {"id": "\(id)", "name": "Patient \(index)"}, "tasks": [\(tasks.joined(separator: ","))]}
                """
            _ = try await store.applyPlan(
                try CarePlanDocument.parse(Data(plan.utf8), path: "\(id).json", bridgeZone: zone),
                at: yearAgo
            )
        }
        let anna = store.scoped(to: "anna")
        for day in 1...days {
            let noon = WallClockTime(now.addingTimeInterval(Double(-day) * 86400), in: zone).startOfDay
                .at(hour: 12).date(in: zone)
            for dose in 0..<10 {
                let at = WallClockTime(noon, in: zone).startOfDay.at(hour: 6 + dose, minute: 30).date(in: zone)
                try await anna.complete(
                    taskID: "anna-dose-\(dose)",
                    occurrence: nil,
                    at: at,
                    entry: Completion(),
                    now: now
                )
            }
            for question in 0..<5 {
                try await anna.complete(
                    taskID: "anna-question-\(question)",
                    occurrence: nil,
                    at: noon,
                    entry: Completion(answer: "\(day % 11)"),
                    now: now
                )
            }
        }
        var samples: [QuantitySample] = []
        for minute in 0..<(7 * 1440) {
            samples.append(
                QuantitySample(
                    type: .heartRate,
                    value: Double(60 + minute % 30),
                    unit: HealthUnit(rawValue: "/min"),
                    start: now.addingTimeInterval(Double(-minute) * 60),
                    source: SampleSource(kind: .manual)
                )
            )
        }
        try await anna.recordSamples(samples)
        let hasher = PasswordHasher()
        try await store.addUser(
            CareUser(id: "nurse", displayName: "Nurse", role: .clinician, patientIDs: ids),
            passwordHash: hasher.hash("bench password 1")
        )
        try await store.addUser(
            CareUser(id: "anna", displayName: "Anna", role: .patient, patientIDs: ["anna"]),
            passwordHash: hasher.hash("bench password 1")
        )
        try store.finishPendingAccess()
    }
}
