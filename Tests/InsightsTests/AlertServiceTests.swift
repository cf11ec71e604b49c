import AlertDelivery
import BridgeCore
import CarePlan
import CareStore
import Foundation
import Insights
import Logging
import ServiceLifecycle
import Synchronization
import TestSupport
import Testing

/// The bridge's in-process alert evaluation: a reading stored while the service runs raises its alert and the
/// notification is delivered without any `alerts deliver` beside it; shutdown delivers what is pending.
@Suite struct AlertServiceTests {
    typealias F = AlertFixture
    static let quiet = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
    static let heavy = AlertRule(
        id: "heavy",
        severity: .warning,
        condition: .compare(.greaterThan, 100, unit: .kilogram)
    )

    @Test func aReadingStoredWhileRunningRaisesItsAlertAndTheChannelGetsIt() async throws {
        let fixture = try F()
        try fixture.store.addTask(F.weighIn([Self.heavy]))
        #expect(try await AlertService.planHasRules(fixture.store))
        try fixture.store.enableAlertChannel(CareStore.webhookAlertChannel)
        let received = Mutex<[String]>([])
        let deliverer = AlertDeliverer(store: fixture.store, channel: CareStore.webhookAlertChannel, logger: Self.quiet)
        { delivery in
            received.withLock { $0.append("\(delivery.change.rawValue) \(delivery.alert.trip.ruleID)") }
        }
        // Re-evaluation without changes only after an hour: the store's change is what makes it evaluate.
        let service = AlertService(
            store: fixture.store,
            deliverers: [deliverer],
            evaluationInterval: .seconds(3600),
            minimumPause: .milliseconds(50),
            logger: Self.quiet
        )
        let group = ServiceGroup(services: [service], logger: Self.quiet)
        let running = Task { try await group.run() }
        // The first evaluation, on start.
        try await waitUntil("alert service", timeout: .seconds(90)) { await service.evaluations >= 1 }
        #expect(try await fixture.store.alerts().isEmpty)

        try await fixture.weight(104.5, at: Date().addingTimeInterval(-3600))
        try await waitUntil("alert service", timeout: .seconds(90)) { received.withLock { $0 } == ["raised heavy"] }
        #expect(try await fixture.store.alerts().map(\.trip.ruleID) == ["heavy"])

        await group.triggerGracefulShutdown()
        try await running.value
        #expect(await service.pendingAtStop == [CareStore.webhookAlertChannel: 0])
    }

    @Test func aPlanWithoutRulesHasNone() async throws {
        let fixture = try F()
        try fixture.store.addTask(F.weighIn([]))
        #expect(try await AlertService.planHasRules(fixture.store) == false)
    }

    @Test func anAlertRaisedJustBeforeShutdownIsStillDelivered() async throws {
        let fixture = try F()
        try fixture.store.addTask(F.weighIn([Self.heavy]))
        try fixture.store.enableAlertChannel(CareStore.webhookAlertChannel)
        let received = Mutex(0)
        let deliverer = AlertDeliverer(store: fixture.store, channel: CareStore.webhookAlertChannel, logger: Self.quiet)
        { _ in received.withLock { $0 += 1 } }
        let service = AlertService(
            store: fixture.store,
            deliverers: [deliverer],
            evaluationInterval: .seconds(3600),
            minimumPause: .seconds(3600),  // only shutdown ends the pause
            logger: Self.quiet
        )
        let group = ServiceGroup(services: [service], logger: Self.quiet)
        let running = Task { try await group.run() }
        try await waitUntil("alert service", timeout: .seconds(90)) { await service.evaluations >= 1 }
        try await fixture.weight(120, at: Date().addingTimeInterval(-600))
        try await Task.sleep(for: .milliseconds(100))  // the change is noted
        await group.triggerGracefulShutdown()
        try await running.value
        #expect(received.withLock { $0 } == 1)
        #expect(try await fixture.store.alertDeliveryCount(channel: CareStore.webhookAlertChannel) == 0)
    }
}
