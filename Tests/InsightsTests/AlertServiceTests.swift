import AlertDelivery
import BridgeCore
import CarePlan
import CareStore
import Foundation
import Insights
import Logging
import MQTTBridge
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
        try await fixture.store.addTask(F.weighIn([Self.heavy]))
        #expect(try await AlertService.planHasRules(fixture.store))
        try await fixture.store.enableAlertChannel(CareStore.webhookAlertChannel)
        let sender = RecordingSender()
        // Polls and re-evaluation without changes only after an hour: the store's change is what makes it
        // evaluate, and the evaluation what wakes the outbox.
        let outbox = Self.outbox(fixture, sender)
        let service = AlertService(
            store: fixture.store,
            outboxes: [outbox],
            evaluationInterval: .seconds(3600),
            minimumPause: .milliseconds(50),
            logger: Self.quiet
        )
        let group = ServiceGroup(services: [outbox, service], logger: Self.quiet)
        let running = Task { try await group.run() }
        // The first evaluation, on start.
        try await waitUntil("alert service", timeout: .seconds(300)) { await service.evaluations >= 1 }
        #expect(try await fixture.store.alerts().isEmpty)

        try await fixture.weight(104.5, at: Date().addingTimeInterval(-3600))
        try await waitUntil("alert service", timeout: .seconds(300)) { sender.received == ["raised heavy"] }
        #expect(try await fixture.store.alerts().map(\.trip.ruleID) == ["heavy"])

        await group.triggerGracefulShutdown()
        try await running.value
        #expect(await outbox.pendingAtStop == 0)
    }

    /// The webhook channel's outbox service delivering to `sender`, polling only every hour.
    static func outbox(_ fixture: F, _ sender: RecordingSender) -> OutboxService<AlertOutboxChannel> {
        OutboxService(
            channel: AlertOutboxChannel(
                store: fixture.store,
                channel: CareStore.webhookAlertChannel,
                sender: sender,
                logger: quiet
            ),
            changes: nil,
            pollInterval: .seconds(3600),
            logger: quiet
        )
    }

    @Test func aPlanWithoutRulesHasNone() async throws {
        let fixture = try F()
        try await fixture.store.addTask(F.weighIn([]))
        #expect(try await AlertService.planHasRules(fixture.store) == false)
    }

    @Test func anAlertRaisedJustBeforeShutdownIsStillDelivered() async throws {
        let fixture = try F()
        try await fixture.store.addTask(F.weighIn([Self.heavy]))
        try await fixture.store.enableAlertChannel(CareStore.webhookAlertChannel)
        let sender = RecordingSender()
        let outbox = Self.outbox(fixture, sender)
        let service = AlertService(
            store: fixture.store,
            outboxes: [outbox],
            evaluationInterval: .seconds(3600),
            minimumPause: .seconds(3600),  // only shutdown ends the pause
            logger: Self.quiet
        )
        // The outbox first: the group shuts it down after the service's last evaluation.
        let group = ServiceGroup(services: [outbox, service], logger: Self.quiet)
        let running = Task { try await group.run() }
        try await waitUntil("alert service", timeout: .seconds(300)) { await service.evaluations >= 1 }
        try await fixture.weight(120, at: Date().addingTimeInterval(-600))
        await group.triggerGracefulShutdown()
        try await running.value
        #expect(sender.received.count == 1)
        #expect(try await fixture.store.alertDeliveryCount(channel: CareStore.webhookAlertChannel) == 0)
    }
}

/// Records every notification it is given and confirms it.
final class RecordingSender: AlertSender {
    private let log = Mutex<[String]>([])

    /// `<change> <rule>` per notification, in order.
    var received: [String] { log.withLock { $0 } }

    func send(_ delivery: AlertDelivery) async throws -> AlertSendReceipt {
        log.withLock { $0.append("\(delivery.change.rawValue) \(delivery.alert.trip.ruleID)") }
        return AlertSendReceipt()
    }
}
