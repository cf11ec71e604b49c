import BridgeCore
import CarePlan
import Foundation
import Testing

@Suite struct AnswerAndAlertPlanTests {
    func parse(_ task: String) throws(CarePlanError) -> CareTask {
        let json = """
            {"tasks": [{"id": "t", "title": "T", \(task),
              "schedule": {"timeZone": "Europe/Berlin", "elements": [{"start": "2026-11-01T00:00:00",
                "interval": {"days": 1}, "duration": "allDay"}]}}]}
            """
        return try CarePlanDocument.parse(Data(json.utf8), path: "plan.json", bridgeZone: berlin).tasks[0]
    }

    func problem(_ task: String) -> String {
        do {
            _ = try parse(task)
            return "accepted"
        } catch {
            return error.description
        }
    }

    @Test func readsAnswerFormatsAndRules() throws {
        let task = try parse(
            """
            "kind": "assessment",
            "answer": {"type": "scale", "min": 0, "max": 10, "step": 1, "labels": {"0": "none", "10": "worst"}},
            "alerts": [
              {"id": "high", "severity": "critical", "when": {"≥": 7}, "message": "Pain {value}"},
              {"id": "band", "when": {"outside": [2, 6]}},
              {"id": "rising", "trend": {"rise": 3, "withinDays": 2}},
              {"id": "unanswered", "adherence": {"fewerThan": 1, "by": "21:30"}}
            ]
            """
        )
        #expect(task.answer == .scale(min: 0, max: 10, step: 1, labels: [0: "none", 10: "worst"]))
        #expect(
            task.alerts == [
                AlertRule(
                    id: "high",
                    severity: .critical,
                    condition: .compare(.greaterThanOrEqual, 7, unit: nil),
                    message: "Pain {value}"
                ),
                AlertRule(id: "band", condition: .range(lower: 2, upper: 6, inside: false, unit: nil)),
                AlertRule(id: "rising", condition: .trend(change: 3, days: 2, unit: nil)),
                AlertRule(id: "unanswered", condition: .adherence(fewerThan: 1, by: 21 * 60 + 30)),
            ]
        )
        // The encoded task is a plan-file task again (plan show --json | plan apply).
        let encoded = try JSONEncoder().encode(task)
        let plan = Data("{\"tasks\": [".utf8) + encoded + Data("]}".utf8)
        #expect(try CarePlanDocument.parse(plan, path: "encoded.json", bridgeZone: berlin).tasks == [task])
    }

    @Test func refusesWhatCannotWorkWithThePathAndTheReason() {
        #expect(
            problem(#""kind": "intervention", "answer": {"type": "yesNo"}"#)
                == "plan.json: tasks[0].answer: only an assessment without a linkage is answered by a person "
                + "(remove \"answer\" or \"linkage\")"
        )
        #expect(
            problem(#""kind": "assessment", "answer": {"type": "scale", "min": 5, "max": 1}"#)
                == "plan.json: tasks[0].answer.max: max (1) must be above min (5)"
        )
        #expect(
            problem(#""kind": "assessment", "answer": {"type": "choice", "options": []}"#)
                == "plan.json: tasks[0].answer.options: a choice needs at least one option"
        )
        #expect(problem(#""kind": "assessment", "answer": {"type": "yesNo", "min": 1}"#).contains("does not apply"))
        #expect(problem(#""kind": "assessment", "answer": {"type": "stars"}"#).contains("unknown answer type"))
        #expect(
            problem(#""kind": "assessment", "answer": {"type": "text"}, "alerts": [{"id": "x", "when": {">": 1}}]"#)
                == "plan.json: tasks[0].alerts[0].when: a threshold needs numeric values (a linkage or a numeric "
                + "answer)"
        )
        #expect(
            problem(#""kind": "intervention", "alerts": [{"id": "x", "adherence": {"fewerThan": 1, "by": "25:00"}}]"#)
                == "plan.json: tasks[0].alerts[0].adherence.by: expected a time of day HH:MM, got \"25:00\""
        )
        #expect(
            problem(#""kind": "intervention", "alerts": [{"id": "x"}]"#)
                == "plan.json: tasks[0].alerts[0]: a rule needs exactly one of \"when\", \"trend\" or \"adherence\""
        )
        #expect(
            problem(
                #""kind": "intervention", "alerts": [{"id": "x", "adherence": {"fewerThan": 1}}, {"id": "x", "adherence": {"fewerThan": 2}}]"#
            ) == "plan.json: tasks[0].alerts[1].id: duplicate rule id \"x\""
        )
        #expect(
            problem(
                #""kind": "assessment", "answer": {"type": "count"}, "alerts": [{"id": "x", "severity": "red", "when": {">": 1}}]"#
            )
            .contains("unknown severity \"red\"")
        )
    }

    @Test func answersParseAsPeopleTypeThem() throws {
        #expect(try AnswerFormat.duration.parse("7h30m").value == 27_000)
        #expect(try AnswerFormat.duration.parse("7.5h").value == 27_000)
        #expect(try AnswerFormat.duration.parse("450m").value == 27_000)
        #expect(try AnswerFormat.duration.parse("27000").value == 27_000)
        #expect(throws: AnswerFormat.Refusal.self) { try AnswerFormat.duration.parse("long") }
        #expect(try AnswerFormat.yesNo.parse("N") == (0, "no"))
        let scale = AnswerFormat.scale(min: 0, max: 5, step: 0.5, labels: [:])
        #expect(try scale.parse("2,5").value == 2.5)
        #expect(throws: AnswerFormat.Refusal.self) { try scale.parse("2.25") }
        #expect(AnswerFormat.duration.display(value: 27_000, text: nil) == "7h 30m")
    }
}
