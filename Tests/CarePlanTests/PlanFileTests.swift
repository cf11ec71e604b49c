import BridgeCore
import CarePlan
import Foundation
import Testing

@Suite struct PlanFileTests {
    let berlin = TimeZone(identifier: "Europe/Berlin")!

    func parse(_ json: String) throws(CarePlanError) -> CarePlanDocument {
        try CarePlanDocument.parse(Data(json.utf8), path: "plan.json", bridgeZone: berlin)
    }

    @Test func readsTheIssueExample() throws {
        let document = try parse(
            """
            {"tasks": [{"id": "weigh-in", "title": "Weigh yourself", "kind": "assessment",
              "schedule": {"timeZone": "Europe/Berlin", "elements": [{"start": "2026-11-01T00:00:00",
                "interval": {"days": 1}, "duration": "allDay"}]},
              "linkage": {"type": "bodyMass", "unit": "kg", "aggregation": "first"}}]}
            """
        )
        #expect(document.tasks.count == 1)
        let task = try #require(document.tasks.first)
        #expect(task.id == "weigh-in")
        #expect(task.kind == .assessment)
        #expect(task.impactsAdherence)
        #expect(task.schedule.timeZonePolicy == .fixed("Europe/Berlin"))
        #expect(task.schedule.elements.first?.interval == .days(1))
        #expect(task.schedule.elements.first?.duration == .allDay)
        #expect(task.linkage == SampleLinkage(type: .bodyMass, unit: .kilogram, aggregation: .first))
    }
}
