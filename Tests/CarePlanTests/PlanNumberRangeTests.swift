import BridgeCore
import CarePlan
import Foundation
import Testing

/// Every number of a plan file is range-checked when the file is read, with its JSON path in the error, and the
/// stored forms refuse what the reader refuses, so a number that would overflow the schedule engine or an integer
/// conversion never reaches it (the probe's `"duration": 1e19` and `"fewerThan": 9223372036854775807`).
@Suite struct PlanNumberRangeTests {
    typealias BadPlan = PlanFileTests.BadPlan

    static func task(
        _ fields: String = "",
        element: String = #""start": "2026-11-01", "interval": {"days": 1}"#
    )
        -> String
    {
        PlanFileTests.task(fields, element: element)
    }

    static func rule(_ condition: String, answer: String = #"{"type": "count"}"#) -> String {
        task(#", "answer": \#(answer), "alerts": [{"id": "r", \#(condition)}]"#)
    }

    static let outOfRange: [BadPlan] = [
        BadPlan(
            name: "duration 1e19",
            json: task(element: #""start": "2026-11-01", "interval": {"days": 1}, "duration": 1e19"#),
            location: "tasks[0].schedule.elements[0].duration",
            fragment: "1e+19 is out of range (0…31622400)"
        ),
        BadPlan(
            name: "duration just above a leap year",
            json: task(element: #""start": "2026-11-01", "interval": {"days": 1}, "duration": 31622401"#),
            location: "tasks[0].schedule.elements[0].duration",
            fragment: "31622401 is out of range (0…31622400)"
        ),
        BadPlan(
            name: "interval of 2^63-1 days",
            json: task(element: #""start": "2026-11-01", "interval": {"days": 9223372036854775807}"#),
            location: "tasks[0].schedule.elements[0].interval.days",
            fragment: "9223372036854775807 is out of range (0…1000000)"
        ),
        BadPlan(
            name: "interval of 1e19 minutes",
            json: task(element: #""start": "2026-11-01", "interval": {"minutes": 1e19}"#),
            location: "tasks[0].schedule.elements[0].interval.minutes",
            fragment: "out of range"
        ),
        BadPlan(
            name: "weekly count 2^63-1",
            json: task(element: #""start": "2026-11-01", "weekly": [0, 9223372036854775807, 0, 0, 0, 0, 0]"#),
            location: "tasks[0].schedule.elements[0].weekly[1]",
            fragment: "count must be 0…1000"
        ),
        BadPlan(
            name: "weekly count 1e19",
            json: task(element: #""start": "2026-11-01", "weekly": [0, 1e19, 0, 0, 0, 0, 0]"#),
            location: "tasks[0].schedule.elements[0].weekly[1]",
            fragment: "out of range"
        ),
        BadPlan(
            name: "target value 1e300",
            json: task(element: #""start": "2026-11-01", "interval": {"days": 1}, "targetValues": [{"value": 1e300}]"#),
            location: "tasks[0].schedule.elements[0].targetValues[0].value",
            fragment: "1e+300 is out of range"
        ),
        BadPlan(
            name: "adherence fewerThan 2^63-1",
            json: task(
                #", "kind": "intervention", "alerts": [{"id": "r", "adherence": {"fewerThan": 9223372036854775807}}]"#
            ),
            location: "tasks[0].alerts[0].adherence.fewerThan",
            fragment: "9223372036854775807 is out of range (1…100000)"
        ),
        BadPlan(
            name: "adherence fewerThan 1e19",
            json: task(#", "kind": "intervention", "alerts": [{"id": "r", "adherence": {"fewerThan": 1e19}}]"#),
            location: "tasks[0].alerts[0].adherence.fewerThan",
            fragment: "out of range"
        ),
        BadPlan(
            name: "trend within 2^63-1 days",
            json: rule(#""trend": {"rise": 2, "withinDays": 9223372036854775807}"#),
            location: "tasks[0].alerts[0].trend.withinDays",
            fragment: "9223372036854775807 is out of range (1…36500)"
        ),
        BadPlan(
            name: "trend rise 1e300",
            json: rule(#""trend": {"rise": 1e300, "withinDays": 3}"#),
            location: "tasks[0].alerts[0].trend.rise",
            fragment: "1e+300 is out of range"
        ),
        BadPlan(
            name: "threshold 1e300",
            json: rule(#""when": {">=": 1e300}"#),
            location: "tasks[0].alerts[0].when.>=",
            fragment: "1e+300 is out of range"
        ),
        BadPlan(
            name: "range bound -1e300",
            json: rule(#""when": {"outside": [-1e300, 5]}"#),
            location: "tasks[0].alerts[0].when.outside[0]",
            fragment: "-1e+300 is out of range"
        ),
        BadPlan(
            name: "answer scale max 1e300",
            json: task(#", "answer": {"type": "scale", "min": 0, "max": 1e300}"#),
            location: "tasks[0].answer.max",
            fragment: "1e+300 is out of range"
        ),
        BadPlan(
            name: "answer scale step 1e300",
            json: task(#", "answer": {"type": "scale", "min": 0, "max": 10, "step": 1e300}"#),
            location: "tasks[0].answer.step",
            fragment: "1e+300 is out of range"
        ),
        BadPlan(
            name: "retention days 2^63-1",
            json: #"{"retention": {"heartRate": {"keepRawDays": 9223372036854775807}}}"#,
            location: "retention.heartRate.keepRawDays",
            fragment: "between 1 and 36500"
        ),
    ]

    @Test("a number out of its range is refused with its JSON path", arguments: outOfRange)
    func refusesOutOfRangeNumbers(_ plan: BadPlan) {
        do {
            let document = try CarePlanDocument.parse(Data(plan.json.utf8), path: "plan.json", bridgeZone: berlin)
            Issue.record("accepted \(document.tasks.count) tasks")
        } catch {
            #expect(error.location == plan.location, "\(error)")
            #expect(error.message.contains(plan.fragment), "\(error.message)")
        }
    }

    @Test func numbersAtTheEdgesOfTheirRangesAreAccepted() throws {
        let json = Self.task(
            #", "kind": "intervention", "alerts": [{"id": "r", "adherence": {"fewerThan": 100000}}]"#,
            element: #""start": "2026-11-01", "interval": {"days": 1000000}, "duration": 31622400"#
        )
        let task = try CarePlanDocument.parse(Data(json.utf8), path: "plan.json", bridgeZone: berlin).tasks[0]
        #expect(task.schedule.elements[0].duration == .seconds(31_622_400))
        #expect(task.alerts[0].condition == .adherence(fewerThan: 100_000, by: nil))
    }

    /// The stored forms (what the store reads back) refuse the same numbers instead of trapping on them.
    @Test(arguments: [
        #"{"start": "2026-11-01T00:00:00", "interval": {"days": 1}, "duration": 1e19}"#,
        #"{"start": "2026-11-01T00:00:00", "interval": {"days": 1}, "targetValues": [{"value": 1e300}]}"#,
    ])
    func storedElementsWithOutOfRangeNumbersAreRefused(json: String) {
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(ScheduleElement.self, from: Data(json.utf8))
        }
    }

    @Test(arguments: [
        #"{"id": "r", "severity": "warning", "adherence": {"fewerThan": 9223372036854775807}}"#,
        #"{"id": "r", "severity": "warning", "adherence": {"fewerThan": 1e300}}"#,
        #"{"id": "r", "severity": "warning", "adherence": {"fewerThan": 1.5}}"#,
        #"{"id": "r", "severity": "warning", "trend": {"rise": 2, "withinDays": 9223372036854775807}}"#,
        #"{"id": "r", "severity": "warning", "trend": {"rise": 1e300, "withinDays": 3}}"#,
        #"{"id": "r", "severity": "warning", "when": {">=": 1e300}}"#,
    ])
    func storedRulesWithOutOfRangeNumbersAreRefused(json: String) {
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(AlertRule.self, from: Data(json.utf8))
        }
    }

    @Test func storedAnswerScaleOutOfRangeIsRefused() {
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(
                AnswerFormat.self,
                from: Data(#"{"type": "scale", "min": 0, "max": 1e300, "step": 1}"#.utf8)
            )
        }
    }

    @Test func aDurationAnswerTooLongToShowIsRefusedAndAStoredOneIsShownWithoutTrapping() {
        #expect(throws: AnswerFormat.Refusal.self) { try AnswerFormat.duration.parse("1e300") }
        #expect(AnswerFormat.duration.display(value: 1e300, text: nil) == "1e+300")
    }
}
