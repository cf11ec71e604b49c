import CareStore
import Foundation
import Logging
import MQTTBridge
import TestSupport
import Testing

/// The care plan in a real Home Assistant: task sensors, a button per intervention and the day's adherence,
/// published by ``PlanStatePublisher`` on a real mosquitto, the button pressed through Home Assistant's REST API.
extension HomeAssistantTests {
    static let walkPlan = """
        {"tasks": [
          {"id": "walk", "title": "Evening walk", "kind": "intervention",
           "schedule": {"timeZone": "UTC",
                        "elements": [{"start": "2026-01-01T00:00:00", "interval": {"days": 1}, "duration": "allDay"}]}}
        ]}
        """

    @Test func pressingAnInterventionsButtonCompletesTheCurrentEventOnceAsHomeAssistant() async throws {
        let home = try #require(HomeAssistantServer.current)
        let scratch = try ScratchDirectory("home-assistant-")
        let path = scratch.path("store.sqlite")
        let planFile = scratch.path("plan.json")
        try Self.walkPlan.write(toFile: planFile, atomically: true, encoding: .utf8)
        let applied = try await BridgeProcess.run(["plan", "apply", planFile, "--store", path], directory: scratch.url)
        #expect(applied.status == 0, "\(applied.stderr)")
        let utc = TimeZone(identifier: "UTC")!
        let quiet = Logger(label: "plan-test") { _ in SwiftLogNoOpLogHandler() }
        let store = try CareStore(path: path, bridgeZone: utc, logger: quiet)
        let discovery = HomeAssistantDiscovery()
        let url = "mqtt://127.0.0.1:\(home.broker.port)"
        let connection = BrokerConnection(
            configuration: try .init(
                brokerURL: url,
                availabilityTopic: discovery.availabilityTopic(for: .bridge),
                clientID: "plan-\(UUID().uuidString.prefix(6))"
            ),
            logger: quiet
        )
        let publisher = PlanStatePublisher(
            store: store,
            connection: connection,
            discovery: discovery,
            zone: utc,
            logger: quiet
        )
        let running = Task { try await publisher.run() }
        defer { running.cancel() }

        func state(_ entity: String) async throws -> String? {
            try await home.state(entity)?["state"] as? String
        }
        // Each entity's config and state arrive on their own; Home Assistant shows each when it has read it.
        try await waitUntil("Home Assistant shows the walk due with its button, adherence 0 %", timeout: .seconds(120))
        {
            let (sensor, button, adherence) = (
                try await state("sensor.carebridge_plan_walk"), try await state("button.carebridge_plan_walk_complete"),
                try await state("sensor.carebridge_plan_adherence")
            )
            return sensor == "due" && button != nil && button != "unavailable" && Double(adherence ?? "") == 0
        }

        try await home.callService("button", "press", data: ["entity_id": "button.carebridge_plan_walk_complete"])
        try await waitUntil("the press reaches the bridge") { await publisher.commands.count == 1 }
        guard case .completed(let key) = await publisher.commands.first else {
            Issue.record("the press was refused: \(await publisher.commands)")
            return
        }
        let events = try await store.events(keys: [key])
        let outcome = try #require(events.first?.outcome)
        #expect(outcome.author == PlanStatePublisher.author)
        try await waitUntil("Home Assistant shows the walk done, adherence 100 %", timeout: .seconds(120)) {
            let (sensor, adherence) = (
                try await state("sensor.carebridge_plan_walk"), try await state("sensor.carebridge_plan_adherence")
            )
            return sensor == "done" && Double(adherence ?? "") == 100
        }

        // Pressed again: refused, the event keeps its one outcome.
        try await home.callService("button", "press", data: ["entity_id": "button.carebridge_plan_walk_complete"])
        try await waitUntil("the second press reaches the bridge") { await publisher.commands.count == 2 }
        // A stale command (an event that is not the current one) and an unknown task, as any MQTT client sends them.
        let other = BrokerConnection(
            configuration: try .init(
                brokerURL: url,
                availabilityTopic: nil,
                clientID: "other-\(UUID().uuidString.prefix(6))"
            ),
            logger: quiet
        )
        try await other.publish(
            topic: "carebridge/plan/walk/complete",
            payload: "\(UUID().uuidString.lowercased()):0",
            retain: false
        )
        try await other.publish(topic: "carebridge/plan/nosuch/complete", payload: "x:0", retain: false)
        await other.stop()
        try await waitUntil("the stale and unknown commands reach the bridge") { await publisher.commands.count == 4 }
        let commands = await publisher.commands
        for refused in commands.dropFirst() {
            guard case .refused = refused else {
                Issue.record("not refused: \(refused)")
                continue
            }
        }
        #expect("\(commands[1])".contains("already has an outcome"), "\(commands)")
        #expect("\(commands[2])".contains("stale"), "\(commands)")
        #expect("\(commands[3])".contains("no intervention nosuch"), "\(commands)")
        let after = try await store.events(keys: [key])
        #expect(after.first?.outcome == outcome)

        running.cancel()
        await connection.stop()
    }
}
