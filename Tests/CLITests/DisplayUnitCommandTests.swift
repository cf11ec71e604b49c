import Foundation
import TestSupport
import Testing

/// Terminal output and alert messages write units as people do (`mmHg`, `°C`); JSON keeps the UCUM codes scripts rely on.
@Suite struct DisplayUnitCommandTests {
    static let plan = """
        {"tasks": [
          {"id": "bp", "title": "Blood pressure", "kind": "assessment",
           "schedule": {"timeZone": "Europe/Berlin",
                        "elements": [{"start": "2026-11-16T00:00", "interval": {"days": 1}, "duration": "allDay"}]},
           "linkage": {"type": "bloodPressureSystolic", "unit": "mmHg", "aggregation": "first"},
           "alerts": [{"id": "high", "severity": "warning", "when": {">": 140, "unit": "mmHg"}}]},
          {"id": "temp", "title": "Temperature", "kind": "assessment",
           "schedule": {"timeZone": "Europe/Berlin",
                        "elements": [{"start": "2026-11-16T00:00", "interval": {"days": 1}, "duration": "allDay"}]},
           "linkage": {"type": "bodyTemperature", "unit": "°C", "aggregation": "max"},
           "alerts": [{"id": "fever", "severity": "critical", "when": {">=": 38}}]}
        ]}
        """

    @Test func tasksInsightsAndAlertsShowMmHgAndDegreesCelsiusNotTheirUCUMCodes() async throws {
        let scratch = try ScratchDirectory("carebridge-units-")
        let store = scratch.url.appendingPathComponent("store.sqlite").path
        func run(_ arguments: [String]) async throws -> CarebridgeProcess.Result {
            try await CarebridgeProcess.run(arguments + ["--store", store], environment: ["TZ": "Europe/Berlin"])
        }
        let plan = scratch.url.appendingPathComponent("plan.json")
        try Data(Self.plan.utf8).write(to: plan)
        #expect(try await run(["plan", "apply", plan.path]).status == 0)
        let at = ["--at", "2026-11-18T08:00", "--force"]
        #expect(try await run(["ingest", "bloodPressure", "150/90", "mmHg"] + at).status == 0)
        #expect(try await run(["ingest", "bodyTemperature", "38.2", "°C"] + at).status == 0)

        let tasks = try await run(["tasks"])
        #expect(tasks.stdout.contains("bloodPressureSystolic first (mmHg)"), "\(tasks.stdout)")
        #expect(tasks.stdout.contains("bodyTemperature max (°C)"), "\(tasks.stdout)")
        let insights = try await run(["insights", "--from", "2026-11-16", "--to", "2026-11-22"])
        #expect(insights.stdout.contains("latest 150 mmHg"), "\(insights.stdout)")
        #expect(insights.stdout.contains("latest 38.2 °C"), "\(insights.stdout)")
        #expect(!insights.stdout.contains("mm[Hg]") && !insights.stdout.contains("Cel"), "\(insights.stdout)")

        let alerts = try await run(["alerts"])
        #expect(alerts.stdout.contains("150 mmHg (> 140 mmHg)"), "\(alerts.stdout)")
        #expect(alerts.stdout.contains("38.2 °C (≥ 38)"), "\(alerts.stdout)")
        #expect(!alerts.stdout.contains("mm[Hg]") && !alerts.stdout.contains("Cel"), "\(alerts.stdout)")

        let json = try await run(["insights", "--from", "2026-11-16", "--to", "2026-11-22", "--json"])
        #expect(json.stdout.contains("\"mm[Hg]\"") && json.stdout.contains("\"Cel\""), "\(json.stdout)")
    }
}
