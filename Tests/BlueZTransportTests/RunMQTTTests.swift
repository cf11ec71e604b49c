import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `carebridge run --mqtt` against the fake bluetoothd and a real mosquitto, watched by `mosquitto_sub`.
extension FakeBlueZSuites {
    @Suite(.enabled(if: MosquittoBroker.testsEnabled, "needs mosquitto; \(MosquittoBroker.installHint)"))
    struct RunMQTTTests {
        @Test func runPublishesEveryLiveSampleAndGoesOfflineWhenStopped() async throws {
            let recording = "thermometer-fahrenheit.jsonl"
            let expected = try BridgeEndToEndTests.keys(fromGolden: recording)
            try #require(!expected.isEmpty)
            let broker = try MosquittoBroker()
            try broker.start()
            let fake = try await FakeBlueZ()
            defer { fake.stop() }
            try await fake.addAdapter()
            let store = BridgeEndToEndTests.temporaryStore()
            defer { try? FileManager.default.removeItem(atPath: store) }
            let states = try await MosquittoSubscriber(broker: broker, topic: "carebridge/+/+", count: expected.count)

            let bridge = try await BridgeEndToEndTests.startBridge(
                fake,
                store: store,
                extra: ["--mqtt", "mqtt://127.0.0.1:\(broker.port)"]
            )
            try await fake.play(FakeBlueZ.recordings.appendingPathComponent(recording))
            // The samples are published while the bridge runs, as they arrive.
            let messages = try await states.messages()
            #expect(bridge.process.isRunning)
            try await BridgeEndToEndTests.settle(fake) { messages.count >= expected.count }
            #expect(await bridge.terminate() == 0, "carebridge run: \(bridge.stderr.suffix(3000))")

            let listed = try await CarebridgeBinary.run([
                "samples", "--store", store, "--json", "--from", "2000-01-01", "--to", "2100-01-01",
            ])
            let stored = try #require(
                try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]]
            )
            let published = try messages.map { message in
                let payload = try #require(
                    try JSONSerialization.jsonObject(with: Data(message.payload.utf8)) as? [String: Any]
                )
                return payload["id"] as? String ?? ""
            }
            #expect(Set(published) == Set(stored.compactMap { $0["id"] as? String }))
            #expect(messages.allSatisfy { $0.qos == 1 && !$0.retained })
            let status = try await MosquittoSubscriber(broker: broker, topic: "carebridge/status", count: 1)
            #expect(try await status.messages().map(\.payload) == ["offline"])
            let outbox = try await CarebridgeBinary.run(["outbox", "--store", store])
            #expect(outbox.stdout.contains("outbox empty"))
        }

        /// A plan whose thermometer readings raise an alert: the bridge then publishes samples and alert sensors.
        static let feverPlan = """
            {"tasks": [{"id": "temperature", "title": "Take your temperature", "kind": "assessment",
              "schedule": {"timeZone": "Europe/Berlin",
                           "elements": [{"start": "2026-11-01T00:00:00", "interval": {"days": 1}, "duration": "allDay"}]},
              "linkage": {"type": "bodyTemperature", "unit": "Cel", "aggregation": "first"},
              "alerts": [{"id": "fever", "severity": "warning", "when": {">": 30, "unit": "Cel"}}]}]}
            """

        @Test func samplesAndAlertsShareOneConnectionWhoseWillSaysOfflineWhenTheBridgeIsKilled() async throws {
            let broker = try MosquittoBroker()
            try broker.start()
            let fake = try await FakeBlueZ()
            defer { fake.stop() }
            try await fake.addAdapter()
            let store = BridgeEndToEndTests.temporaryStore()
            let plan = store + ".plan.json"
            defer {
                try? FileManager.default.removeItem(atPath: store)
                try? FileManager.default.removeItem(atPath: plan)
            }
            try Self.feverPlan.write(toFile: plan, atomically: true, encoding: .utf8)
            let alert = try await MosquittoSubscriber(broker: broker, topic: "carebridge/alert/+/state", count: 1)
            let samples = try await MosquittoSubscriber(broker: broker, topic: "carebridge/+/+", count: 1)

            let bridge = try await BridgeEndToEndTests.startBridge(
                fake,
                store: store,
                plan: plan,
                extra: ["--mqtt", "mqtt://127.0.0.1:\(broker.port)"]
            )
            try await fake.play(FakeBlueZ.recordings.appendingPathComponent("thermometer-fahrenheit.jsonl"))
            #expect(try await samples.messages().count == 1)
            #expect(try await alert.messages().map(\.payload) == ["ON"])
            // The retained `online` now, and the will's `offline` once the bridge is gone.
            let status = try await MosquittoSubscriber(broker: broker, topic: "carebridge/status", count: 2)
            try await waitUntil("online") { status.received.map(\.payload) == ["online"] }

            // Killed as a crash would be: no DISCONNECT, so the broker publishes the will.
            kill(bridge.process.processIdentifier, SIGKILL)
            bridge.process.waitUntilExit()
            #expect(try await status.messages().map(\.payload) == ["online", "offline"])

            // One connection carried it all: the samples, the alert sensor, the status.
            let connections = broker.log.split(separator: "\n").filter {
                $0.contains("New client connected") && $0.contains(" as carebridge-")
            }
            #expect(connections.count == 1, "\(connections)")
            // "New client connected from 127.0.0.1:PORT as CLIENT (p2, c1, k30)."
            let client = try #require(
                connections.first?.components(separatedBy: " as ").last?.split(separator: " ").first
            )
            let publishers = Set(
                broker.log.split(separator: "\n").filter { $0.hasPrefix("Received PUBLISH from ") }.map {
                    $0.dropFirst("Received PUBLISH from ".count).prefix { $0 != " " }
                }
            )
            #expect(publishers == [client], "\(publishers)")
        }
    }
}
