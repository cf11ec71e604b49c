import BridgeCore
import CarePlan
import Foundation
import Testing

@Suite struct PlanFileTests {
    func parse(_ json: String, zone: TimeZone = berlin) throws(CarePlanError) -> CarePlanDocument {
        try CarePlanDocument.parse(Data(json.utf8), path: "plan.json", bridgeZone: zone)
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
        #expect(task.title == "Weigh yourself")
        #expect(task.kind == .assessment)
        #expect(task.impactsAdherence)
        #expect(task.tags.isEmpty)
        #expect(task.effectiveDate == nil)
        #expect(task.schedule.timeZonePolicy == .fixed("Europe/Berlin"))
        #expect(
            task.schedule.elements == [
                ScheduleElement(start: wall("2026-11-01"), interval: .days(1), duration: .allDay)
            ]
        )
        #expect(task.linkage == SampleLinkage(type: .bodyMass, unit: .kilogram, aggregation: .first))
    }

    @Test func readsEveryOptionalField() throws {
        let document = try parse(
            """
            {"tasks": [
              {"id": "meds", "title": "Take medication", "kind": "intervention", "instructions": "With water",
               "groupIdentifier": "morning", "tags": ["pills", "daily"], "impactsAdherence": false,
               "effectiveDate": "2026-11-01T06:00:00",
               "schedule": {"elements": [
                  {"start": "2026-11-01T07:30", "end": "2027-01-01", "interval": {"weeks": 1, "days": 2},
                   "duration": 900, "text": "before breakfast", "targetValues": [{"value": 2}, {"value": 1.5, "unit": "mg/dL"}]},
                  {"start": "2026-11-01", "weekly": [0, 4, 0, 2, 0, 4, 0]}]}},
              {"id": "temp", "title": "Temperature", "kind": "assessment",
               "schedule": {"timeZone": "floating", "elements": [{"start": "2026-11-01", "interval": {"hours": 12}}]},
               "linkage": {"type": "bodyTemperature", "unit": "°F", "aggregation": "max"}}]}
            """,
            zone: newYork
        )
        let meds = document.tasks[0]
        #expect(meds.instructions == "With water")
        #expect(meds.groupIdentifier == "morning")
        #expect(meds.tags == ["pills", "daily"])
        #expect(!meds.impactsAdherence)
        #expect(meds.schedule.timeZonePolicy == .floating)
        // A zone-less effective date is a wall-clock time in the schedule's zone (floating → the bridge zone).
        #expect(meds.effectiveDate == instant("2026-11-01T06:00:00", newYork))
        let first = meds.schedule.elements[0]
        #expect(first.start == wall("2026-11-01T07:30:00"))
        #expect(first.end == wall("2027-01-01"))
        #expect(first.interval == ScheduleInterval(days: 2, weeks: 1))
        #expect(first.duration == .seconds(900))
        #expect(first.text == "before breakfast")
        #expect(first.targetValues == [TargetValue(value: 2), TargetValue(value: 1.5, unit: .milligramPerDecilitre)])
        #expect(meds.schedule.elements[1].weeklyOccurrences == [0, 4, 0, 2, 0, 4, 0])
        #expect(meds.schedule.elements[1].duration == .allDay)
        let temp = document.tasks[1]
        #expect(temp.schedule.elements[0].duration == .seconds(3600))
        #expect(temp.linkage == SampleLinkage(type: .bodyTemperature, unit: .fahrenheit, aggregation: .max))
    }

    struct BadPlan: Sendable, CustomStringConvertible {
        var name: String
        var json: String
        var location: String
        var fragment: String
        var description: String { name }
    }

    static func task(
        _ fields: String = "",
        element: String = #""start": "2026-11-01", "interval": {"days": 1}"#,
        schedule: String = ""
    ) -> String {
        let kind = fields.contains("\"kind\"") ? "" : #""kind": "assessment", "#
        return
            #"{"tasks": [{"id": "a", "title": "A", \#(kind)"schedule": {\#(schedule)"elements": [{\#(element)}]}\#(fields)}]}"#
    }

    static let badPlans: [BadPlan] = [
        BadPlan(
            name: "syntax",
            json: "{\"tasks\": [\n  {\"id\": \"a\",,}]}",
            location: "line 2, column 14",
            fragment: "invalid JSON"
        ),
        BadPlan(name: "not an object", json: "[]", location: "", fragment: "expected an object"),
        BadPlan(name: "missing tasks", json: "{}", location: "tasks", fragment: "missing required key"),
        BadPlan(
            name: "unknown top key",
            json: #"{"tasks": [], "task": []}"#,
            location: "task",
            fragment: "unknown key"
        ),
        BadPlan(
            name: "unknown zone",
            json: task(schedule: #""timeZone": "Europe/Atlantis", "#),
            location: "tasks[0].schedule.timeZone",
            fragment: "unknown time zone \"Europe/Atlantis\""
        ),
        BadPlan(
            name: "unknown type",
            json: task(#", "linkage": {"type": "bodyWeight", "unit": "kg", "aggregation": "first"}"#),
            location: "tasks[0].linkage.type",
            fragment: "unknown quantity type \"bodyWeight\""
        ),
        BadPlan(
            name: "unknown unit",
            json: task(#", "linkage": {"type": "bodyMass", "unit": "stone", "aggregation": "first"}"#),
            location: "tasks[0].linkage.unit",
            fragment: "unknown unit \"stone\""
        ),
        BadPlan(
            name: "unit of another dimension",
            json: task(#", "linkage": {"type": "bodyMass", "unit": "mmHg", "aggregation": "first"}"#),
            location: "tasks[0].linkage.unit",
            fragment: "cannot express body mass"
        ),
        BadPlan(
            name: "unknown aggregation",
            json: task(#", "linkage": {"type": "bodyMass", "unit": "kg", "aggregation": "median"}"#),
            location: "tasks[0].linkage.aggregation",
            fragment: "unknown aggregation \"median\""
        ),
        BadPlan(
            name: "linkage on intervention",
            json: task(
                #", "kind": "intervention", "linkage": {"type": "bodyMass", "unit": "kg", "aggregation": "first"}"#
            ),
            location: "tasks[0].linkage",
            fragment: "intervention"
        ),
        BadPlan(
            name: "zero interval",
            json: task(element: #""start": "2026-11-01", "interval": {"days": 0}"#),
            location: "tasks[0].schedule.elements[0].interval",
            fragment: "at least one non-zero"
        ),
        BadPlan(
            name: "negative interval",
            json: task(element: #""start": "2026-11-01", "interval": {"hours": -2}"#),
            location: "tasks[0].schedule.elements[0].interval.hours",
            fragment: "must not be negative"
        ),
        BadPlan(
            name: "fractional interval",
            json: task(element: #""start": "2026-11-01", "interval": {"days": 1.5}"#),
            location: "tasks[0].schedule.elements[0].interval.days",
            fragment: "whole number"
        ),
        BadPlan(
            name: "unknown interval unit",
            json: task(element: #""start": "2026-11-01", "interval": {"fortnights": 1}"#),
            location: "tasks[0].schedule.elements[0].interval.fortnights",
            fragment: "unknown key"
        ),
        BadPlan(
            name: "end before start",
            json: task(element: #""start": "2026-11-02", "end": "2026-11-01", "interval": {"days": 1}"#),
            location: "tasks[0].schedule.elements[0].end",
            fragment: "must be after start"
        ),
        BadPlan(
            name: "end equal to start",
            json: task(element: #""start": "2026-11-02", "end": "2026-11-02T00:00:00", "interval": {"days": 1}"#),
            location: "tasks[0].schedule.elements[0].end",
            fragment: "must be after start"
        ),
        BadPlan(
            name: "impossible date",
            json: task(element: #""start": "2026-02-30", "interval": {"days": 1}"#),
            location: "tasks[0].schedule.elements[0].start",
            fragment: "day 30"
        ),
        BadPlan(
            name: "zoned start",
            json: task(element: #""start": "2026-11-01T08:00:00Z", "interval": {"days": 1}"#),
            location: "tasks[0].schedule.elements[0].start",
            fragment: "without a zone"
        ),
        BadPlan(
            name: "weekly length",
            json: task(element: #""start": "2026-11-01", "weekly": [0, 4, 0, 2, 0, 4]"#),
            location: "tasks[0].schedule.elements[0].weekly",
            fragment: "expected 7 counts"
        ),
        BadPlan(
            name: "weekly negative",
            json: task(element: #""start": "2026-11-01", "weekly": [0, 4, 0, -2, 0, 4, 0]"#),
            location: "tasks[0].schedule.elements[0].weekly[3]",
            fragment: "count must be"
        ),
        BadPlan(
            name: "weekly with interval",
            json: task(element: #""start": "2026-11-01", "weekly": [0, 1, 0, 0, 0, 0, 0], "interval": {"days": 1}"#),
            location: "tasks[0].schedule.elements[0].interval",
            fragment: "remove \"interval\""
        ),
        BadPlan(
            name: "missing interval",
            json: task(element: #""start": "2026-11-01""#),
            location: "tasks[0].schedule.elements[0].interval",
            fragment: "missing required key"
        ),
        BadPlan(
            name: "bad duration",
            json: task(element: #""start": "2026-11-01", "interval": {"days": 1}, "duration": "1h""#),
            location: "tasks[0].schedule.elements[0].duration",
            fragment: "\"allDay\" or a number"
        ),
        BadPlan(
            name: "negative duration",
            json: task(element: #""start": "2026-11-01", "interval": {"days": 1}, "duration": -5"#),
            location: "tasks[0].schedule.elements[0].duration",
            fragment: "-5 is out of range (0…31622400)"
        ),
        BadPlan(
            name: "all-day hourly",
            json: task(element: #""start": "2026-11-01", "interval": {"hours": 6}, "duration": "allDay""#),
            location: "tasks[0].schedule.elements[0].interval",
            fragment: "whole days"
        ),
        BadPlan(
            name: "no elements",
            json: #"{"tasks": [{"id": "a", "title": "A", "kind": "assessment", "schedule": {"elements": []}}]}"#,
            location: "tasks[0].schedule.elements",
            fragment: "at least one element"
        ),
        BadPlan(
            name: "unknown kind",
            json: task(#", "kind": "survey""#),
            location: "tasks[0].kind",
            fragment: "unknown kind \"survey\""
        ),
        BadPlan(
            name: "empty id",
            json:
                #"{"tasks": [{"id": "", "title": "A", "kind": "assessment", "schedule": {"elements": [{"start": "2026-11-01", "interval": {"days": 1}}]}}]}"#,
            location: "tasks[0].id",
            fragment: "must not be empty"
        ),
        BadPlan(
            name: "typo in a task key",
            json: task(#", "impactAdherence": false"#),
            location: "tasks[0].impactAdherence",
            fragment: "unknown key"
        ),
        BadPlan(
            name: "wrong type",
            json: task(#", "tags": "vitals""#),
            location: "tasks[0].tags",
            fragment: "expected an array"
        ),
        BadPlan(
            name: "bad effective date",
            json: task(#", "effectiveDate": "yesterday""#),
            location: "tasks[0].effectiveDate",
            fragment: "cannot read 'yesterday'"
        ),
        BadPlan(
            name: "unknown target unit",
            json: task(
                element:
                    #""start": "2026-11-01", "interval": {"days": 1}, "targetValues": [{"value": 1, "unit": "furlong"}]"#
            ),
            location: "tasks[0].schedule.elements[0].targetValues[0].unit",
            fragment: "unknown unit"
        ),
        BadPlan(
            name: "duplicate task ids",
            json:
                #"{"tasks": [{"id": "a", "title": "A", "kind": "intervention", "schedule": {"elements": [{"start": "2026-11-01", "interval": {"days": 1}}]}}, {"id": "a", "title": "B", "kind": "intervention", "schedule": {"elements": [{"start": "2026-11-01", "interval": {"days": 1}}]}}]}"#,
            location: "tasks[1].id",
            fragment: "duplicate task id \"a\" (also tasks[0].id)"
        ),
        BadPlan(
            name: "duplicate contact ids",
            json:
                #"{"patient": {"id": "p", "name": "P"}, "contacts": [{"id": "gp", "name": "GP", "category": "careTeam"}, {"id": "nurse", "name": "N", "category": "careTeam"}, {"id": "gp", "name": "G2", "category": "personal"}]}"#,
            location: "contacts[2].id",
            fragment: "duplicate contact id \"gp\" (also contacts[0].id)"
        ),
        BadPlan(
            name: "duplicate JSON key",
            json: "{\"tasks\": [], \"tasks\": []}",
            location: "line 1, column 15",
            fragment: "duplicate key \"tasks\""
        ),
    ]

    @Test("malformed plan files name the file, the JSON path and the problem", arguments: badPlans)
    func reportsWhereAndWhat(_ plan: BadPlan) {
        do {
            let document = try parse(plan.json)
            Issue.record("parsed \(document.tasks.count) tasks from a bad plan")
        } catch {
            #expect(error.path == "plan.json")
            #expect(error.location == plan.location)
            #expect(error.message.contains(plan.fragment), "\(error.message)")
            #expect(error.description.hasPrefix("plan.json: "))
        }
    }

    @Test func errorDescriptionReadsFileLocationMessage() {
        let error = CarePlanError(
            path: "care/plan.json",
            location: "tasks[0].schedule.elements[1].interval",
            message: "interval must have at least one non-zero component"
        )
        #expect(
            error.description
                == "care/plan.json: tasks[0].schedule.elements[1].interval: interval must have at least one non-zero component"
        )
    }
}
