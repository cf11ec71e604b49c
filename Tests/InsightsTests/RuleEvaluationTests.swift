import BridgeCore
import CarePlan
import CareStore
import Foundation
import Insights
import Testing

@Suite struct RuleEvaluationTests {
    typealias F = AlertFixture

    @Test func aNumericThresholdOnAnAnswerRaisesOnceAndACorrectionWithdrawsIt() async throws {
        let fixture = try F()
        try await fixture.store.addTask(
            F.pain([
                AlertRule(
                    id: "high",
                    severity: .critical,
                    condition: .compare(.greaterThanOrEqual, 7, unit: nil),
                    message: "{title} {value} on {day} ({threshold})"
                )
            ])
        )
        try await fixture.answer("pain", "8", at: F.time(2026, 11, 20, 9))
        let now = F.time(2026, 11, 20, 10)
        let first = try await AlertEngine.evaluate(store: fixture.store, from: F.time(2026, 11, 20), now: now)
        #expect(first.raised.count == 1)
        let alert = try #require(try await fixture.store.alerts().first)
        #expect(alert.trip.message == "Back pain 8 on 2026-11-20 (≥ 7)")
        #expect(alert.trip.severity == .critical && alert.trip.ruleID == "high" && alert.trip.taskVersionNumber == 1)
        #expect(alert.trip.value == 8 && alert.trip.events.count == 1 && alert.state == "open")
        // Evaluating again raises nothing new.
        let again = try await AlertEngine.evaluate(store: fixture.store, from: F.time(2026, 11, 14), now: now)
        #expect(again.raised.isEmpty && again.withdrawn.isEmpty)
        #expect(try await fixture.store.alerts().count == 1)
        // A correction to 5 withdraws it; back to 9 raises the same alert again.
        try await fixture.answer("pain", "5", at: F.time(2026, 11, 20, 9))
        let corrected = try await AlertEngine.evaluate(store: fixture.store, from: F.time(2026, 11, 20), now: now)
        #expect(corrected.withdrawn == [alert.id])
        #expect(try await fixture.store.alert(id: alert.id)?.state == "withdrawn")
        try await fixture.answer("pain", "9", at: F.time(2026, 11, 20, 9))
        let reraised = try await AlertEngine.evaluate(store: fixture.store, from: F.time(2026, 11, 20), now: now)
        #expect(reraised.raised == [alert.id])
        #expect(try await fixture.store.alert(id: alert.id)?.trip.message == "Back pain 9 on 2026-11-20 (≥ 7)")
    }

    @Test func rangesComparisonsAndThresholdUnits() async throws {
        let fixture = try F()
        try await fixture.store.addTask(
            F.weighIn([
                AlertRule(id: "band", condition: .range(lower: 60, upper: 80, inside: false, unit: nil)),
                AlertRule(id: "pounds", condition: .compare(.greaterThan, 177, unit: .pound)),
                AlertRule(id: "low", condition: .compare(.lessThanOrEqual, 59, unit: nil)),
            ])
        )
        try await fixture.weight(70, at: F.time(2026, 11, 2, 8))  // inside the band, 154.3 lb
        try await fixture.weight(80, at: F.time(2026, 11, 3, 8))  // on the bound: inside; 176.4 lb
        try await fixture.weight(81, at: F.time(2026, 11, 4, 8))  // outside, 178.6 lb
        try await fixture.weight(59, at: F.time(2026, 11, 5, 8))  // outside, ≤ 59
        try await AlertEngine.evaluate(store: fixture.store, from: F.time(2026, 11, 1), now: F.time(2026, 11, 6))
        let alerts = try await fixture.store.alerts()
        #expect(
            alerts.map { "\($0.trip.day) \($0.trip.ruleID)" }.sorted() == [
                "2026-11-04 band", "2026-11-04 pounds", "2026-11-05 band", "2026-11-05 low",
            ]
        )
        let pounds = try #require(alerts.first { $0.trip.ruleID == "pounds" })
        #expect(pounds.trip.unit == .pound && abs((pounds.trip.value ?? 0) - 178.574) < 0.01)
        #expect(pounds.trip.samples.count == 1 && pounds.trip.subject.hasPrefix("sample:"))
    }

    @Test func aTrendCountsCalendarDaysAcrossTheAutumnDSTChange() async throws {
        let fixture = try F()
        try await fixture.store.addTask(
            F.weighIn([
                AlertRule(id: "gain", severity: .critical, condition: .trend(change: 2, days: 3, unit: .kilogram))
            ])
        )
        // 2026-10-25 has 25 hours in Berlin: from 10-22 08:00 to 10-25 08:00 is three calendar days but 73 hours.
        try await fixture.weight(70.0, at: F.time(2026, 10, 22, 8))
        try await fixture.weight(70.5, at: F.time(2026, 10, 23, 8))
        try await fixture.weight(72.5, at: F.time(2026, 10, 25, 8))
        try await AlertEngine.evaluate(store: fixture.store, from: F.time(2026, 10, 20), now: F.time(2026, 10, 26))
        let alerts = try await fixture.store.alerts()
        #expect(alerts.count == 1)
        let gain = try #require(alerts.first)
        #expect(gain.trip.day == "2026-10-25" && gain.trip.value == 2.5 && gain.trip.samples.count == 2)
        #expect(gain.trip.message == "Body mass: +2.5 kg within 3 days (70 → 72.5 kg)")
        // A rise of exactly 2 kg, or one spread over more than 3 days, does not trip.
        try await fixture.weight(72.0, at: F.time(2026, 11, 10, 8))
        try await fixture.weight(74.0, at: F.time(2026, 11, 12, 8))
        try await fixture.weight(71.0, at: F.time(2026, 11, 20, 8))
        try await fixture.weight(73.5, at: F.time(2026, 11, 24, 8))
        try await AlertEngine.evaluate(store: fixture.store, from: F.time(2026, 11, 1), now: F.time(2026, 11, 25))
        #expect(try await fixture.store.alerts().count == 1)
    }

    @Test func aLateReadingRaisesATrendForAnEarlierDayAndAnotherOneWithdrawsIt() async throws {
        let fixture = try F()
        try await fixture.store.addTask(
            F.weighIn([AlertRule(id: "gain", condition: .trend(change: 2, days: 3, unit: nil))])
        )
        try await fixture.weight(72.6, at: F.time(2026, 11, 12, 8))
        try await AlertEngine.evaluate(store: fixture.store, from: F.time(2026, 11, 12), now: F.time(2026, 11, 12, 9))
        #expect(try await fixture.store.alerts().isEmpty)
        // The scale's memory delivers the 11-10 reading only on 11-14: the rise shows on 11-12.
        let late = try await fixture.weight(70.1, at: F.time(2026, 11, 10, 8))
        let result = try await AlertEngine.evaluate(
            store: fixture.store,
            from: late.start,
            now: F.time(2026, 11, 14, 9)
        )
        #expect(result.raised.count == 1)
        #expect(try await fixture.store.alerts().first?.trip.day == "2026-11-12")
        // Deleting the late reading (it was someone else's) withdraws the alert.
        try await fixture.store.deleteSample(id: late.id)
        let after = try await AlertEngine.evaluate(
            store: fixture.store,
            from: late.start,
            now: F.time(2026, 11, 14, 10)
        )
        #expect(after.withdrawn.count == 1)
        #expect(try await fixture.store.alerts(includeClosed: false).isEmpty)
    }

    @Test func adherenceIsJudgedOnlyAfterTheDeadline() async throws {
        let fixture = try F()
        try await fixture.store.addTask(
            F.medication([
                AlertRule(id: "day", condition: .adherence(fewerThan: 2, by: nil)),
                AlertRule(id: "morning", severity: .info, condition: .adherence(fewerThan: 1, by: 10 * 60)),
            ]),
            at: F.time(2026, 10, 1)
        )
        // 11-20: morning dose at 08:30, evening dose missed. 11-21: morning dose taken late (10:30... within its
        // window 08–10? no: completed at 09:59), evening taken.
        try await fixture.store.complete(
            taskID: "medication",
            at: F.time(2026, 11, 20, 8, 30),
            now: F.time(2026, 11, 20, 9)
        )
        try await fixture.store.complete(
            taskID: "medication",
            at: F.time(2026, 11, 21, 9, 59),
            now: F.time(2026, 11, 21, 10)
        )
        try await fixture.store.complete(
            taskID: "medication",
            at: F.time(2026, 11, 21, 20, 5),
            now: F.time(2026, 11, 21, 21)
        )
        // At 11-20 21:00 the day is not over: nothing yet.
        try await AlertEngine.evaluate(store: fixture.store, from: F.time(2026, 11, 20), now: F.time(2026, 11, 20, 21))
        #expect(try await fixture.store.alerts().isEmpty)
        try await AlertEngine.evaluate(store: fixture.store, from: F.time(2026, 11, 20), now: F.time(2026, 11, 22, 1))
        let alerts = try await fixture.store.alerts()
        #expect(alerts.map { "\($0.trip.day) \($0.trip.ruleID)" } == ["2026-11-20 day"])
        #expect(alerts.first?.trip.message == "Medication: 1 of 2 done that day on 2026-11-20")
        #expect(alerts.first?.trip.events.count == 2 && alerts.first?.trip.subject == "day:2026-11-20")
        // Late entry of the evening dose (a correction) withdraws it.
        try await fixture.store.complete(
            taskID: "medication",
            at: F.time(2026, 11, 20, 20, 10),
            now: F.time(2026, 11, 22, 2)
        )
        let result = try await AlertEngine.evaluate(
            store: fixture.store,
            from: F.time(2026, 11, 20),
            now: F.time(2026, 11, 22, 3)
        )
        #expect(result.withdrawn.count == 1)
    }

    @Test func theByDeadlineCountsOnlyWhatWasDoneByThen() async throws {
        let fixture = try F()
        try await fixture.store.addTask(
            F.medication([AlertRule(id: "morning", condition: .adherence(fewerThan: 1, by: 9 * 60))]),
            at: F.time(2026, 10, 1)
        )
        try await fixture.store.complete(
            taskID: "medication",
            at: F.time(2026, 11, 20, 9, 30),
            now: F.time(2026, 11, 20, 10)
        )
        try await fixture.store.complete(
            taskID: "medication",
            at: F.time(2026, 11, 21, 8, 45),
            now: F.time(2026, 11, 21, 10)
        )
        try await AlertEngine.evaluate(
            store: fixture.store,
            from: F.time(2026, 11, 20),
            now: F.time(2026, 11, 21, 9, 30)
        )
        let alerts = try await fixture.store.alerts()
        #expect(alerts.map(\.trip.day) == ["2026-11-20"])
        #expect(alerts.first?.trip.occurredAt == F.time(2026, 11, 20, 9))
    }

    @Test func adherenceOnTheSpringDSTDayUsesTheLocalDay() async throws {
        let fixture = try F()
        try await fixture.store.addTask(
            F.medication([AlertRule(id: "day", condition: .adherence(fewerThan: 2, by: nil))]),
            at: F.time(2026, 10, 1)
        )
        // 2027-03-28 has 23 hours in Berlin; both doses that day are on time.
        try await fixture.store.complete(
            taskID: "medication",
            at: F.time(2027, 3, 28, 8, 30),
            now: F.time(2027, 3, 28, 9)
        )
        try await fixture.store.complete(
            taskID: "medication",
            at: F.time(2027, 3, 28, 20, 30),
            now: F.time(2027, 3, 28, 21)
        )
        try await fixture.store.complete(
            taskID: "medication",
            at: F.time(2027, 3, 29, 8, 30),
            now: F.time(2027, 3, 29, 9)
        )
        try await AlertEngine.evaluate(
            store: fixture.store,
            from: F.time(2027, 3, 28),
            to: F.time(2027, 3, 29, 23),
            now: F.time(2027, 3, 30, 1)
        )
        #expect(try await fixture.store.alerts().map(\.trip.day) == ["2027-03-29"])
    }

    @Test func anOutOfRangeReadingAlwaysAlertsAndAQuarantinedOneNever() async throws {
        let fixture = try F()
        try await fixture.store.addTask(
            CareTask(
                id: "glucose",
                title: "Glucose",
                kind: .assessment,
                schedule: F.daily(),
                linkage: SampleLinkage(type: .bloodGlucose, unit: .milligramPerDecilitre, aggregation: .each),
                alerts: [AlertRule(id: "low", condition: .compare(.lessThan, 70, unit: nil))]
            )
        )
        func glucose(
            _ value: Double,
            hour: Int,
            comparator: ValueComparator? = nil,
            quarantine: String? = nil
        )
            -> QuantitySample
        {
            QuantitySample(
                type: .bloodGlucose,
                value: value,
                unit: .milligramPerDecilitre,
                start: F.time(2026, 11, 20, hour),
                transmittedValue: value,
                transmittedUnit: .milligramPerDecilitre,
                source: .manual,
                receivedAt: F.time(2026, 11, 20, hour),
                comparator: comparator,
                quarantineReason: quarantine
            )
        }
        let lo = glucose(20, hour: 7, comparator: .lessThan)  // LO at the device's limit of 20 mg/dL
        let hi = glucose(.infinity, hour: 9, comparator: .greaterThan)  // HI, limit unknown
        let low = glucose(60, hour: 12)
        let quarantined = glucose(5, hour: 15, quarantine: "implausible")
        try await fixture.store.recordSamples([lo, hi, low, quarantined])
        try await AlertEngine.evaluate(store: fixture.store, from: F.time(2026, 11, 20), now: F.time(2026, 11, 21))
        let alerts = try await fixture.store.alerts()
        #expect(alerts.map(\.trip.ruleID) == [RuleEvaluator.outOfRangeRuleID, RuleEvaluator.outOfRangeRuleID, "low"])
        #expect(alerts.prefix(2).allSatisfy { $0.trip.severity == .critical })
        #expect(alerts.map(\.trip.samples) == [[lo.id], [hi.id], [low.id]])
        #expect(alerts[1].trip.message.contains("HI") && alerts[1].trip.value == nil)
        #expect(!alerts.contains { $0.trip.samples.contains(quarantined.id) })
    }

    @Test func acknowledgingKeepsTheAlertAndQueuesNotifications() async throws {
        let fixture = try F()
        try await fixture.store.enableAlertChannel(CareStore.webhookAlertChannel)
        try await fixture.store.addTask(
            F.pain([AlertRule(id: "high", condition: .compare(.greaterThan, 6, unit: nil))])
        )
        try await fixture.answer("pain", "7", at: F.time(2026, 11, 20, 9))
        try await AlertEngine.evaluate(store: fixture.store, from: F.time(2026, 11, 20), now: F.time(2026, 11, 20, 10))
        let alert = try #require(try await fixture.store.alerts().first)
        let acknowledged = try await fixture.store.acknowledgeAlert(
            id: alert.id,
            by: "Nurse Kim",
            at: F.time(2026, 11, 20, 11)
        )
        #expect(acknowledged.state == "acknowledged" && acknowledged.acknowledgedBy == "Nurse Kim")
        // Acknowledging twice changes nothing; an unknown id is an error.
        try await fixture.store.acknowledgeAlert(id: alert.id, by: "someone else")
        #expect(try await fixture.store.alert(id: alert.id)?.acknowledgedBy == "Nurse Kim")
        await #expect(throws: CareStoreError.self) { try await fixture.store.acknowledgeAlert(id: 999, by: nil) }
        let pending = try await fixture.store.pendingAlertDeliveries(
            channel: CareStore.webhookAlertChannel,
            limit: 10,
            now: F.time(2026, 11, 21)
        )
        #expect(pending.map(\.change) == [.raised, .acknowledged])
        #expect(try await fixture.store.alerts(includeClosed: false).isEmpty)
    }

    @Test func theRuleVersionIsTheTaskVersionInForce() async throws {
        let fixture = try F()
        var task = F.pain([AlertRule(id: "high", condition: .compare(.greaterThanOrEqual, 7, unit: nil))])
        try await fixture.store.addTask(task)
        try await fixture.answer("pain", "7", at: F.time(2026, 11, 10, 9))
        task.alerts = [AlertRule(id: "high", condition: .compare(.greaterThanOrEqual, 8, unit: nil))]
        task.effectiveDate = F.time(2026, 11, 15)
        try await fixture.store.updateTask(task)
        try await fixture.answer("pain", "7", at: F.time(2026, 11, 16, 9))
        try await fixture.answer("pain", "8", at: F.time(2026, 11, 17, 9))
        try await AlertEngine.evaluate(store: fixture.store, from: F.time(2026, 11, 1), now: F.time(2026, 11, 18))
        let alerts = try await fixture.store.alerts()
        #expect(alerts.map { "\($0.trip.day) v\($0.trip.taskVersionNumber)" } == ["2026-11-10 v1", "2026-11-17 v2"])
    }
}
