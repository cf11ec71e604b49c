import Foundation
import TestSupport
import Testing

/// `carebridge ingest --mqtt`: a reading typed in by hand reaches the broker without the daemon, and one that
/// cannot is kept in the outbox for the next run.
@Suite(
    "ingest --mqtt with a real broker",
    .serialized,
    .enabled(if: MosquittoBroker.testsEnabled, "needs mosquitto; \(MosquittoBroker.installHint)")
)
struct IngestMQTTTests {
    @Test func aTypedReadingIsPublishedAndOneThatCannotBeWaitsForTheNextRun() async throws {
        let scratch = try ScratchDirectory("mqtt-ingest-")
        let broker = try MosquittoBroker()
        let store = scratch.path("store.sqlite")
        let url = "mqtt://127.0.0.1:\(broker.port)"

        // No broker yet: the reading is stored, the command says it is still queued and exits 75.
        let offline = try await BridgeProcess.run(
            ["ingest", "bodyMass", "72.5", "kg", "--store", store, "--mqtt", url, "--mqtt-wait", "1"],
            directory: scratch.url
        )
        #expect(offline.status == 75, "\(offline.stdout)\n\(offline.stderr)")
        #expect(offline.stdout.contains("recorded body mass 72.5 kg"), "\(offline.stdout)")
        #expect(offline.stderr.contains("1 still in the outbox"), "\(offline.stderr)")

        // With the broker: the next typed reading goes out, and the one left behind with it, in order.
        try broker.start()
        let states = try await MosquittoSubscriber(broker: broker, topic: "carebridge/+/+", count: 2)
        let online = try await BridgeProcess.run(
            ["ingest", "bodyMass", "72.9", "kg", "--store", store, "--mqtt", url],
            directory: scratch.url
        )
        #expect(online.status == 0, "\(online.stderr)")
        #expect(online.stderr.contains("MQTT: 2 sample message(s) delivered"), "\(online.stderr)")
        let values = try await states.messages().map { try jsonObject($0.payload)["value"] as? Double }
        #expect(values == [72.5, 72.9])
    }
}
