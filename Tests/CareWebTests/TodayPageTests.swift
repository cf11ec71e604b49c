import BridgeCore
import CarePlan
import CareStore
import CareWeb
import Foundation
import HTTPTypes
import Logging
import TestSupport
import Testing

/// The Care Card and the Tracker through the app: what a tap records (and who), on which day, what cannot be
/// completed, how device readings and answers read.
@Suite struct TodayPageTests {
    static func record(
        _ browser: Browser,
        _ page: Browser.Page,
        task: String,
        occurrence: Int,
        day: String,
        action: String,
        extra: [String: String] = [:]
    ) async throws -> Browser.Page {
        var fields = [
            "csrf": page.csrf ?? "", "task": task, "occurrence": "\(occurrence)", "day": day, "action": action,
        ]
        fields.merge(extra) { $1 }
        return try await browser.post("/patients/anna/today/record", fields)
    }

    @Test func doneIsRecordedWithItsAuthorAndUndoRemovesIt() async throws {
        let fixture = try await CareAppFixture()
        try await fixture.test { browser in
            try await browser.signIn("anna")
            let page = try await browser.get("/patients/anna/today")
            #expect(page.text.contains("<strong>0 of 3</strong> done"))
            let done = try await Self.record(
                browser,
                page,
                task: "tablet-anna",
                occurrence: 26,
                day: "2026-11-27",
                action: "done"
            )
            #expect(done.status == .seeOther)
            #expect(done.location == "/patients/anna/today?day=2026-11-27#event-tablet-anna-26")
            let after = try await browser.get("/patients/anna/today")
            #expect(after.text.contains("Done at 09:30 by anna"))
            #expect(after.text.contains("<strong>1 of 3</strong> done"))
            let undone = try await Self.record(
                browser,
                after,
                task: "tablet-anna",
                occurrence: 26,
                day: "2026-11-27",
                action: "undo"
            )
            #expect(undone.status == .seeOther)
            let reverted = try await browser.get("/patients/anna/today")
            #expect(reverted.text.contains("<strong>0 of 3</strong> done"))
            #expect(reverted.text.contains("Undone by anna at 09:30"), "who undid it, on the page")
        }
        // The undo is kept with what it removed, who and when.
        let undos = try await fixture.store.scoped(to: "anna").outcomeUndos(
            from: CareAppFixture.start.addingTimeInterval(-86400),
            to: CareAppFixture.start.addingTimeInterval(86400)
        )
        #expect(undos.map(\.author) == ["anna"])
        #expect(undos.first?.taskID == "tablet-anna" && undos.first?.occurrence == 26)
        #expect(undos.first?.undoneAt == CareAppFixture.start)
        #expect(undos.first?.outcome.contains("\"author\":\"anna\"") == true, "\(undos)")
        #expect(try await fixture.store.scoped(to: "bob").outcomeUndos(from: .distantPast, to: .distantFuture).isEmpty)
        let events = try await fixture.store.scoped(to: "anna").events(
            matching: EventQuery(
                from: CareAppFixture.start,
                to: CareAppFixture.start.addingTimeInterval(1),
                taskIDs: ["tablet-anna"]
            )
        )
        #expect(events.first?.outcome == nil)
    }

    @Test func yesterdaysDoseTickedTodayStaysOnYesterdayAndNotDoneKeepsTheReason() async throws {
        let fixture = try await CareAppFixture()
        try await fixture.test { browser in
            try await browser.signIn("anna")
            let page = try await browser.get("/patients/anna/today?day=2026-11-26")
            #expect(page.text.contains("Thursday 26 November 2026"))
            #expect(page.text.contains("Not done"), "yesterday's dose window has passed")
            _ = try await Self.record(
                browser,
                page,
                task: "tablet-anna",
                occurrence: 25,
                day: "2026-11-26",
                action: "done"
            )
            _ = try await Self.record(
                browser,
                page,
                task: "pain-anna",
                occurrence: 25,
                day: "2026-11-26",
                action: "notdone",
                extra: ["reason": "asleep"]
            )
            let after = try await browser.get("/patients/anna/today?day=2026-11-26")
            #expect(after.text.contains("Done at 09:59 by anna"), "inside the 08:00–10:00 window of that day")
            #expect(after.text.contains("Not done: asleep by anna"))
        }
        let yesterday = try await fixture.store.scoped(to: "anna").events(
            matching: EventQuery(
                from: CareAppFixture.start.addingTimeInterval(-86400 - 7200),
                to: CareAppFixture.start.addingTimeInterval(-86400),
                taskIDs: ["tablet-anna"]
            )
        )
        let value = try #require(yesterday.first?.outcome?.values.first)
        #expect(WallClockTime(value.measuredAt, in: CareAppFixture.zone).day == 26)
        #expect(yesterday.first?.outcome?.author == "anna")
    }

    @Test func anAnswerIsCheckedAgainstTheScaleAndShownAsPeopleReadIt() async throws {
        let fixture = try await CareAppFixture()
        try await fixture.test { browser in
            try await browser.signIn("anna")
            let page = try await browser.get("/patients/anna/today")
            #expect(page.text.contains(#"type="number" inputmode="decimal" min="0" max="10" step="1" required"#))
            let refused = try await Self.record(
                browser,
                page,
                task: "pain-anna",
                occurrence: 26,
                day: "2026-11-27",
                action: "answer",
                extra: ["answer": "11"]
            )
            #expect(refused.status == .unprocessableContent)
            #expect(
                refused.text.contains(
                    "role=\"alert\">task &#39;pain-anna&#39; (a scale 0–10): 11 is outside the scale 0–10"
                )
            )
            _ = try await Self.record(
                browser,
                page,
                task: "pain-anna",
                occurrence: 26,
                day: "2026-11-27",
                action: "answer",
                extra: ["answer": "7"]
            )
            #expect(try await browser.get("/patients/anna/today").text.contains("Answered 7/10 at 09:30 by anna"))
        }
    }

    @Test func futureEventsAndDeviceMeasurementsCannotBeCompletedByHand() async throws {
        let fixture = try await CareAppFixture()
        try await fixture.test { browser in
            try await browser.signIn("anna")
            let tomorrow = try await browser.get("/patients/anna/today?day=2026-11-28")
            #expect(tomorrow.text.contains("Not due yet"))
            #expect(!tomorrow.text.contains("value=\"done\""), "no Done button on a future day")
            let future = try await Self.record(
                browser,
                tomorrow,
                task: "tablet-anna",
                occurrence: 27,
                day: "2026-11-28",
                action: "done"
            )
            #expect(future.status == .conflict)
            #expect(future.text.contains("is not due yet"))
            let page = try await browser.get("/patients/anna/today")
            #expect(page.text.contains("Waiting for a reading from the device"))
            let weigh = try await Self.record(
                browser,
                page,
                task: "weigh-anna",
                occurrence: 26,
                day: "2026-11-27",
                action: "done"
            )
            #expect(weigh.status == .conflict)
            #expect(weigh.text.contains("completed by the device"))
        }
    }

    @Test func aDeviceReadingAndALowReadingReadAsWhatTheyAre() async throws {
        let fixture = try await CareAppFixture()
        let store = fixture.store.scoped(to: "anna")
        let measured = CareAppFixture.start.addingTimeInterval(-2 * 3600)
        try await store.recordSample(
            QuantitySample(
                type: .bodyMass,
                value: 72.5,
                unit: HealthUnit(rawValue: "kg"),
                start: measured,
                source: SampleSource(kind: .manual)
            )
        )
        try await fixture.test { browser in
            try await browser.signIn("anna")
            let page = try await browser.get("/patients/anna/today")
            #expect(page.text.contains("72.5 kg measured at 07:30"), "\(page.text)")
            let json = try await browser.get("/api/patients/anna/today")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(json.text.utf8)) as? [String: Any])
            let events = try #require(object["events"] as? [[String: Any]])
            let weigh = try #require(
                events.first { $0["task"] as? String == "weigh-anna" && $0["completed"] as? Bool == true }
            )
            let values = try #require(weigh["values"] as? [[String: Any]])
            #expect(values.first?["value"] as? Double == 72.5)
            #expect(object["patient"] as? String == "anna" && object["day"] as? String == "2026-11-27")
        }
    }

    @Test func theChangeFeedTicksWhenAnotherConnectionWritesTheStore() async throws {
        let fixture = try await CareAppFixture()
        let clock = ManualClock()
        let feed = ChangeFeed(
            monitor: try fixture.store.changeMonitor(),
            interval: .milliseconds(250),
            clock: clock,
            logger: Logger(label: "test")
        )
        let ticks = feed.subscribe()
        let running = Task { try await feed.run() }
        try await clock.waitForSleepers(1)
        // Another store value on the same file: another connection, as `replay` in another process would be.
        let other = try CareStore(
            path: fixture.scratch.path("store.sqlite"),
            bridgeZone: CareAppFixture.zone,
            logger: Logger(label: "other")
        )
        try await other.scoped(to: "anna").complete(
            taskID: "tablet-anna",
            occurrence: 26,
            at: CareAppFixture.start,
            entry: Completion(),
            now: CareAppFixture.start
        )
        clock.advance(by: .milliseconds(250))
        var iterator = ticks.makeAsyncIterator()
        let tick = await iterator.next()
        #expect(tick != nil)
        running.cancel()
        _ = try? await running.value
        #expect(await iterator.next() == nil, "the stream ends with the feed")
    }

    /// A page's live stream wakes for its own patient's day only: what it compares is the day's outcome stamp.
    @Test func aDaysStampMovesWithItsPatientsOutcomesOnly() async throws {
        let fixture = try await CareAppFixture()
        let day = (
            from: CareAppFixture.start.addingTimeInterval(-9.5 * 3600),
            to: CareAppFixture.start.addingTimeInterval(14.5 * 3600)
        )
        let anna = fixture.store.scoped(to: "anna")
        let bob = fixture.store.scoped(to: "bob")
        let before = try await anna.outcomeStamp(from: day.from, to: day.to)
        #expect(try await anna.outcomeStamp(from: day.from, to: day.to) == before, "a stamp is stable")
        try await bob.complete(
            taskID: "tablet-bob",
            occurrence: nil,
            at: CareAppFixture.start,
            entry: Completion(),
            now: CareAppFixture.start
        )
        #expect(try await anna.outcomeStamp(from: day.from, to: day.to) == before, "Bob's dose is not Anna's change")
        try await anna.complete(
            taskID: "tablet-anna",
            occurrence: nil,
            at: CareAppFixture.start,
            entry: Completion(),
            now: CareAppFixture.start
        )
        let done = try await anna.outcomeStamp(from: day.from, to: day.to)
        #expect(done != before)
        // The previous day is another page: its stamp does not move.
        let yesterday = try await anna.outcomeStamp(from: day.from.addingTimeInterval(-86400), to: day.from)
        try await anna.complete(
            taskID: "pain-anna",
            occurrence: nil,
            at: CareAppFixture.start,
            entry: Completion(answer: "4"),
            now: CareAppFixture.start
        )
        let answered = try await anna.outcomeStamp(from: day.from, to: day.to)
        #expect(answered != done)
        #expect(try await anna.outcomeStamp(from: day.from.addingTimeInterval(-86400), to: day.from) == yesterday)
        // A reading adds a value; undo removes an outcome: both move it.
        try await anna.recordSample(
            ManualReading.sample(
                type: .bodyMass,
                value: 72.5,
                unit: "kg",
                at: CareAppFixture.start,
                receivedAt: CareAppFixture.start
            ),
            recordedAt: CareAppFixture.start
        )
        let weighed = try await anna.outcomeStamp(from: day.from, to: day.to)
        #expect(weighed != answered)
        try await anna.uncomplete(taskID: "tablet-anna", occurrence: nil, at: CareAppFixture.start)
        let undone = try await anna.outcomeStamp(from: day.from, to: day.to)
        #expect(undone != weighed)
        // A plan change adds events to the day: Bob's moves only his stamp, Anna's hers.
        let walk = """
            , {"id": "walk-%@", "title": "Walk", "kind": "intervention",
               "schedule": {"timeZone": "Europe/Berlin", "elements": [
                 {"start": "2026-11-01T15:00:00", "interval": {"days": 1}, "duration": 3600}]}}
            """
        for patient in ["bob", "anna"] {
            let text = CareAppFixture.plan(patient, extraTasks: walk.replacingOccurrences(of: "%@", with: patient))
            let document = try CarePlanDocument.parse(
                Data(text.utf8),
                path: "\(patient).json",
                bridgeZone: CareAppFixture.zone
            )
            _ = try await fixture.store.applyPlan(document, at: CareAppFixture.start)
            let stamp = try await anna.outcomeStamp(from: day.from, to: day.to)
            #expect(patient == "bob" ? stamp == undone : stamp != undone, "after \(patient)'s plan change")
        }
    }
}
