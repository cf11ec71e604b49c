import Foundation
import TestSupport
import Testing

/// LO/HI and quarantined samples on the way to a real mosquitto, observed by an independent `mosquitto_sub`:
/// a LO/HI state message carries its comparator, a quarantined sample is never published.
@Suite(
    "safety over MQTT with a real broker",
    .serialized,
    .enabled(if: MosquittoBroker.testsEnabled, "needs mosquitto; \(MosquittoBroker.installHint)")
)
struct SafetyMQTTTests {
    static var fixtures: URL { PackageRoot.url.appendingPathComponent("Tests/CLITests/Fixtures/safety") }

    @Test func lowAndHighArePublishedQualifiedAndQuarantinedSamplesAreNot() async throws {
        let scratch = try ScratchDirectory("mqtt-bridge-")
        let recordings = [
            "glucose-meter-lo-hi.jsonl", "thermometer-implausible.jsonl", "beurer-bm85-generic-profile.jsonl",
        ]
        .map { Self.fixtures.appendingPathComponent($0).path }
        let common = ["--time-zone", "UTC", "--devices", Self.fixtures.appendingPathComponent("profiles").path]

        // What the store holds, read independently of MQTT.
        let reference = scratch.path("reference.sqlite")
        let replayed = try await BridgeProcess.run(
            ["replay", "--store", reference] + common + recordings,
            directory: scratch.url
        )
        #expect(replayed.status == 0, "\(replayed.stderr)")
        func list(_ extra: [String]) async throws -> [[String: Any]] {
            let result = try await BridgeProcess.run(
                ["samples", "--store", reference, "--time-zone", "UTC", "--json"] + extra,
                directory: scratch.url
            )
            return try #require(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
        }
        let usable = try await list([])
        let quarantinedIDs = Set(try await list(["--quarantined"]).compactMap { $0["id"] as? String })
        try #require(usable.count == 7 && quarantinedIDs.count == 5)

        let broker = try MosquittoBroker()
        try broker.start()
        // The thermometer's 51 °C and 375 °C are queued before its usable readings: published by mistake they
        // would be among these messages (and in the delivered count).
        let states = try await MosquittoSubscriber(broker: broker, topic: "carebridge/+/+", count: usable.count)
        let replay = try await BridgeProcess.run(
            ["replay", "--store", scratch.path("store.sqlite"), "--mqtt", "mqtt://127.0.0.1:\(broker.port)"]
                + common + recordings,
            directory: scratch.url
        )
        #expect(replay.status == 0, "\(replay.stderr)")
        #expect(replay.stderr.contains("MQTT: \(usable.count) sample message(s) delivered"), "\(replay.stderr)")
        let received = try await states.messages().map { try jsonObject($0.payload) }
        #expect(received.count == usable.count)
        var qualified = 0
        for payload in received {
            let id = payload["id"] as? String ?? ""
            #expect(!quarantinedIDs.contains(id), "quarantined sample \(id) was published")
            let sample = try #require(usable.first { $0["id"] as? String == id })
            if let comparator = sample["comparator"] as? String {
                qualified += 1
                #expect(payload["comparator"] as? String == comparator)
                #expect(payload["interpretation"] as? String == (comparator == "<" ? "LO" : "HI"))
                #expect((payload["value"] as? Double) == (sample["value"] as? Double))
            } else {
                #expect(payload["comparator"] == nil)
            }
        }
        #expect(qualified == 3)
        let high = try #require(received.first { $0["comparator"] as? String == ">" })
        #expect(high["status"] as? [String] == ["result higher than the device can process"])
    }

    @Test func aSampleDeletedAfterPublishingIsRetracted() async throws {
        let scratch = try ScratchDirectory("mqtt-bridge-")
        let recording = Self.fixtures.appendingPathComponent("glucose-meter-lo-hi.jsonl").path
        let store = scratch.path("store.sqlite")
        let broker = try MosquittoBroker()
        try broker.start()
        let arguments = [
            "replay", "--store", store, "--time-zone", "UTC", "--mqtt", "mqtt://127.0.0.1:\(broker.port)",
            "--devices", Self.fixtures.appendingPathComponent("profiles").path, recording,
        ]
        let first = try await BridgeProcess.run(arguments, directory: scratch.url)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stderr.contains("MQTT: 3 sample message(s) delivered"), "\(first.stderr)")

        let listed = try await BridgeProcess.run(
            ["samples", "--store", store, "--time-zone", "UTC", "--json", "--type", "bloodGlucose"],
            directory: scratch.url
        )
        let samples = try #require(JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
        let plain = try #require(samples.first { $0["comparator"] == nil })
        let id = try #require(plain["id"] as? String)
        let deleted = try await BridgeProcess.run(
            ["samples", "delete", id, "--store", store, "--time-zone", "UTC"],
            directory: scratch.url
        )
        #expect(deleted.status == 0, "\(deleted.stderr)")

        // Replaying again stores nothing new; the publisher delivers what the outbox holds: the retraction.
        let states = try await MosquittoSubscriber(broker: broker, topic: "carebridge/+/+", count: 1, liveOnly: true)
        let second = try await BridgeProcess.run(arguments, directory: scratch.url)
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.stderr.contains("MQTT: 0 sample message(s) delivered, 1 retraction(s) of deleted samples"))
        let messages = try await states.messages()
        let payload = try jsonObject(try #require(messages.first).payload)
        #expect(payload["id"] as? String == id)
        #expect(payload["status"] as? String == "entered-in-error")
        #expect(payload["retracted"] as? Bool == true)
        #expect(payload["value"] is NSNull)
        // Retained in place of the deleted reading (delivered live without the flag).
        #expect(messages.first?.retained == false)
        let late = try await MosquittoSubscriber(broker: broker, topic: "carebridge/+/+", count: 1)
        #expect(try jsonObject(try #require(try await late.messages().first).payload)["retracted"] as? Bool == true)
    }
}
