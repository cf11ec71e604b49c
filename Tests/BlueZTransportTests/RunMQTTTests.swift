import Foundation
import TestSupport
import Testing

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
            let messages = try await states.messages(timeout: .seconds(60))
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
    }
}
