import BridgeCore
import CarePlan
import Foundation
import Testing

@Suite struct CodableTests {
    let task = CareTask(
        id: "bp",
        title: "Blood pressure",
        instructions: "Sit for five minutes first",
        kind: .assessment,
        groupIdentifier: "vitals",
        tags: ["morning", "evening"],
        impactsAdherence: false,
        schedule: Schedule(
            timeZonePolicy: .fixed("America/New_York"),
            elements: [
                ScheduleElement(
                    start: wall("2026-11-01T07:00:00"),
                    end: wall("2027-11-01"),
                    interval: ScheduleInterval(days: 1, hours: 2),
                    duration: .minutes(90),
                    text: "morning",
                    targetValues: [TargetValue(value: 120, unit: .millimetreOfMercury), TargetValue(value: 2)]
                ),
                ScheduleElement(weeklyOccurrences: [0, 4, 0, 2, 0, 4, 0], start: wall("2026-11-01")),
            ]
        ),
        linkage: SampleLinkage(type: .bloodPressureSystolic, unit: .kilopascal, aggregation: .mean),
        effectiveDate: instant("2026-10-31T12:00:00")
    )

    @Test func taskRoundTripsThroughJSON() throws {
        let data = try JSONEncoder().encode(task)
        #expect(try JSONDecoder().decode(CareTask.self, from: data) == task)
    }

    @Test func encodedTaskIsAValidPlanFileTask() throws {
        let encoded = try JSONEncoder().encode(task)
        let plan = Data("{\"tasks\": [".utf8) + encoded + Data("]}".utf8)
        let document = try CarePlanDocument.parse(plan, path: "encoded.json", bridgeZone: berlin)
        #expect(document.tasks == [task])
    }

    @Test func scheduleUsesThePlanFileShape() throws {
        let schedule = Schedule.weeklyOccurrences(
            [0, 1, 0, 0, 0, 0, 0],
            start: wall("2026-11-02"),
            timeZone: .floating
        )
        let object = try JSONSerialization.jsonObject(with: JSONEncoder().encode(schedule)) as? [String: Any]
        #expect(object?["timeZone"] as? String == "floating")
        let element = (object?["elements"] as? [[String: Any]])?.first
        #expect(element?["start"] as? String == "2026-11-02T00:00:00")
        #expect(element?["weekly"] as? [Int] == [0, 1, 0, 0, 0, 0, 0])
    }

    @Test(arguments: [
        #"{"start": "2026-11-01", "interval": {}, "duration": 60}"#,
        #"{"start": "2026-11-01", "interval": {"days": -1}, "duration": 60}"#,
        #"{"start": "2026-11-31", "interval": {"days": 1}, "duration": 60}"#,
        #"{"start": "2026-11-02", "end": "2026-11-01", "interval": {"days": 1}}"#,
        #"{"start": "2026-11-01", "weekly": [1, 2, 3]}"#,
        #"{"start": "2026-11-01", "interval": {"days": 1}, "duration": "daily"}"#,
    ])
    func decodingRejectsInvalidElements(json: String) {
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(ScheduleElement.self, from: Data(json.utf8)) }
    }

    @Test func decodingRejectsAnUnknownZone() {
        let json = #"{"timeZone": "Europe/Atlantis", "elements": [{"start": "2026-11-01", "interval": {"days": 1}}]}"#
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(Schedule.self, from: Data(json.utf8)) }
    }
}
