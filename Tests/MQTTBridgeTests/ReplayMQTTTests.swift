import Foundation
import TestSupport
import Testing

/// `carebridge replay --mqtt` against a real mosquitto, observed by an independent `mosquitto_sub`.
@Suite(
    "replay --mqtt with a real broker",
    .serialized,
    .enabled(if: MosquittoBroker.testsEnabled, "needs mosquitto; \(MosquittoBroker.installHint)")
)
struct ReplayMQTTTests {
    /// Units and device classes Home Assistant expects for the blood-pressure recording's quantities.
    static let homeAssistantVocabulary: [String: (unit: String, deviceClass: String?)] = [
        "bloodPressureSystolic": ("mmHg", "pressure"),
        "bloodPressureDiastolic": ("mmHg", "pressure"),
        "meanArterialPressure": ("mmHg", "pressure"),
        "heartRate": ("bpm", nil),
    ]

    @Test func replayPublishesEveryNewSampleWithRetainedDiscoveryConfigsAndAvailability() async throws {
        let scratch = try ScratchDirectory("mqtt-bridge-")
        let recording = BridgeProcess.recording("blood-pressure-kpa.jsonl")
        let expected = try await ExpectedSamples(recording: recording, scratch: scratch)
        try #require(expected.samples.count == Self.homeAssistantVocabulary.count)
        let broker = try MosquittoBroker()
        try broker.start()
        let states = try await MosquittoSubscriber(
            broker: broker,
            topic: "carebridge/+/+",
            count: expected.samples.count
        )
        let store = scratch.path("store.sqlite")
        let url = "mqtt://127.0.0.1:\(broker.port)"

        let replay = try await BridgeProcess.run(
            ["replay", "--store", store, "--time-zone", "UTC", "--mqtt", url, recording],
            directory: scratch.url
        )
        #expect(replay.status == 0, "\(replay.stderr)")
        #expect(replay.stderr.contains("MQTT: \(expected.samples.count) sample message(s) delivered"))

        // One state message per stored sample: QoS 1 (retained, delivered live without the flag), on carebridge/<device>/<type>, carrying the
        // sample's id, value and unit.
        let received = try await states.messages()
        #expect(received.count == expected.samples.count)
        var byID: [String: MosquittoSubscriber.Message] = [:]
        for message in received {
            let payload = try jsonObject(message.payload)
            byID[payload["id"] as? String ?? ""] = message
        }
        for sample in expected.samples {
            let id = try #require(sample["id"] as? String)
            let message = try #require(byID[id], "no state message for sample \(id)")
            let payload = try jsonObject(message.payload)
            let type = try #require(sample["type"] as? String)
            #expect(message.topic == ExpectedSamples.stateTopic(sample))
            #expect(message.qos == 1)
            #expect(!message.retained)
            #expect(payload["type"] as? String == type)
            #expect(payload["value"] as? Double == sample["value"] as? Double)
            #expect(payload["unit"] as? String == Self.homeAssistantVocabulary[type]?.unit)
            #expect(payload["start"] as? String == sample["start"] as? String)
        }

        // A late subscriber gets one retained config per device and type; a one-off replay leaves availability to
        // the publishers that keep running (no status, no will).
        let configs = try await MosquittoSubscriber(
            broker: broker,
            topic: "homeassistant/#",
            count: expected.samples.count
        )
        let configMessages = try await configs.messages()
        let device = ExpectedSamples.deviceID(expected.samples[0])
        #expect(Set(configMessages.map(\.topic)).count == expected.samples.count)
        for message in configMessages {
            #expect(message.retained)
            let config = try jsonObject(message.payload)
            let parts = message.topic.split(separator: "/").map(String.init)
            try #require(parts.count == 5)
            let type = parts[3]
            let vocabulary = try #require(Self.homeAssistantVocabulary[type], "unexpected config \(message.topic)")
            #expect(parts[0] == "homeassistant" && parts[1] == "sensor" && parts[4] == "config")
            #expect(parts[2] == "carebridge_\(device)")
            #expect(config["unique_id"] as? String == "carebridge_\(device)_\(type)")
            #expect(config["state_topic"] as? String == "carebridge/\(device)/\(type)")
            #expect(config["unit_of_measurement"] as? String == vocabulary.unit)
            #expect(config["device_class"] as? String == vocabulary.deviceClass)
            #expect(config["state_class"] as? String == "measurement")
            #expect(config["availability_topic"] == nil)
            let deviceBlock = try #require(config["device"] as? [String: Any])
            #expect(deviceBlock["identifiers"] as? [String] == ["carebridge_\(device)"])
        }
        #expect(!broker.log.contains("'carebridge/status'"))
        #expect(!broker.log.contains("Will message specified"))

        // Replaying again stores nothing new, so nothing is published: the broker received exactly one state
        // message per sample over both runs.
        let again = try await BridgeProcess.run(
            ["replay", "--store", store, "--time-zone", "UTC", "--mqtt", url, recording],
            directory: scratch.url
        )
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stderr.contains("MQTT: 0 sample message(s) delivered"))
        let statePublishes = broker.log.split(separator: "\n").filter {
            $0.hasPrefix("Received PUBLISH from carebridge-") && $0.contains("'carebridge/\(device)/")
        }
        #expect(statePublishes.count == expected.samples.count)
    }

    @Test func brokerStoppedMidReplayAndRestartedLosesNoSample() async throws {
        let scratch = try ScratchDirectory("mqtt-bridge-")
        let recording = BridgeProcess.recording("pulse-oximeter-reconnect.jsonl")
        let expected = try await ExpectedSamples(recording: recording, scratch: scratch)
        // The samples of the first three notifications (one second apart in the recording) arrive before the stop.
        let receivedTimes = expected.samples.compactMap { $0["receivedAt"] as? String }
        let firstTimes = Set(
            receivedTimes.sorted().reduce(into: [String]()) { if $0.last != $1 { $0.append($1) } }.prefix(3)
        )
        let before = receivedTimes.filter(firstTimes.contains).count
        try #require(before > 0 && before < expected.samples.count - 10)

        let broker = try MosquittoBroker()
        try broker.start()
        // Subscribers that stay connected (their count is never reached); their output is read as it grows.
        let never = expected.samples.count + 1000
        let first = try await MosquittoSubscriber(broker: broker, topic: "carebridge/+/+", count: never)
        let store = scratch.path("store.sqlite")
        // Five times faster: notifications 200 ms apart, about seven seconds in all. The first reconnect attempt
        // comes five seconds after the broker went away, so the second subscriber is in place by then.
        let bridge = try BridgeProcess(
            [
                "replay", "--store", store, "--time-zone", "UTC", "--speed", "5", "--mqtt-retry", "5",
                "--mqtt", "mqtt://127.0.0.1:\(broker.port)", recording,
            ],
            directory: scratch.url
        )
        try await waitUntil("the first \(before) samples reach the subscriber") { first.received.count >= before }
        broker.stop()
        let beforeOutage = first.received
        // The broker comes back once the bridge has seen it go (its log says so), not after a guessed pause.
        try await waitUntil("the bridge notices the broker is gone") { bridge.stderr.contains("lost the MQTT broker") }
        try broker.start()
        let second = try await MosquittoSubscriber(broker: broker, topic: "carebridge/+/+", count: never)
        // The second subscriber was in place before the bridge came back (the log after the restart).
        func sinceRestart() -> String { broker.log.components(separatedBy: "mosquitto version").last ?? "" }
        try await waitUntil("the bridge reconnects") { sinceRestart().contains("as carebridge-") }
        let log = sinceRestart()
        let subscribed = try #require(log.range(of: "Sending SUBACK to \(second.clientID)"))
        let reconnected = try #require(log.range(of: "as carebridge-"))
        #expect(subscribed.lowerBound < reconnected.lowerBound, "the subscriber must be back before the bridge")

        let result = try await bridge.wait()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("lost the MQTT broker"))
        func ids(_ messages: [MosquittoSubscriber.Message]) throws -> [String] {
            try messages.map { try jsonObject($0.payload)["id"] as? String ?? "" }
        }
        let beforeIDs = try ids(beforeOutage)
        try await waitUntil("every sample arrives after the restart") {
            try Set(beforeIDs + ids(second.received)).isSuperset(of: expected.ids)
        }
        let afterOutage = second.received
        let all = try beforeIDs + ids(afterOutage)
        #expect(Set(all) == expected.ids, "missing: \(expected.ids.subtracting(all))")
        #expect(beforeOutage.count >= before && beforeOutage.count < expected.samples.count)
        // At least once: a message in flight at the stop may come twice, nothing more.
        #expect(all.count - Set(all).count <= 1)
        // In order on each side of the outage: what a device sent later is delivered later.
        for messages in [beforeOutage, afterOutage] {
            let times = try messages.map { try jsonObject($0.payload)["received_at"] as? String ?? "" }
            #expect(times == times.sorted())
        }
        let outbox = try await BridgeProcess.run(["outbox", "--store", store, "--json"], directory: scratch.url)
        #expect(try jsonObject(outbox.stdout)["pending"] as? Int == 0)
    }

    @Test func killedBridgeDeliversItsPendingOutboxOnTheNextRun() async throws {
        let scratch = try ScratchDirectory("mqtt-bridge-")
        let recording = BridgeProcess.recording("weight-scale-stored-burst.jsonl")
        let expected = try await ExpectedSamples(recording: recording, scratch: scratch)
        try #require(!expected.samples.isEmpty)
        let broker = try MosquittoBroker()  // not started yet: the broker is unreachable
        let store = scratch.path("store.sqlite")
        let url = "mqtt://127.0.0.1:\(broker.port)"

        let bridge = try BridgeProcess(
            ["replay", "--store", store, "--time-zone", "UTC", "--mqtt-wait", "600", "--mqtt", url, recording],
            directory: scratch.url
        )
        var pending = 0
        try await waitUntil("every sample queued") {
            let outbox = try await BridgeProcess.run(["outbox", "--store", store, "--json"], directory: scratch.url)
            pending = (try? jsonObject(outbox.stdout)["pending"] as? Int) ?? 0
            return pending == expected.samples.count
        }
        #expect(bridge.process.isRunning, "the bridge waits for the broker")
        bridge.kill()

        let listed = try await BridgeProcess.run(["outbox", "--store", store, "--json"], directory: scratch.url)
        let outbox = try jsonObject(listed.stdout)
        #expect(outbox["pending"] as? Int == expected.samples.count)
        let topics = try #require(outbox["topics"] as? [[String: Any]])
        #expect(topics.reduce(0) { $0 + ($1["pending"] as? Int ?? 0) } == expected.samples.count)
        #expect(
            Set(topics.compactMap { $0["topic"] as? String })
                == Set(expected.samples.map { ExpectedSamples.stateTopic($0) })
        )

        try broker.start()
        let subscriber = try await MosquittoSubscriber(
            broker: broker,
            topic: "carebridge/+/+",
            count: expected.samples.count
        )
        let next = try await BridgeProcess.run(
            ["replay", "--store", store, "--time-zone", "UTC", "--mqtt", url, recording],
            directory: scratch.url
        )
        #expect(next.status == 0, "\(next.stderr)")
        #expect(next.stdout.contains("0 new"), "nothing new is stored the second time")
        let messages = try await subscriber.messages()
        let ids = try messages.map { try jsonObject($0.payload)["id"] as? String ?? "" }
        #expect(Set(ids) == expected.ids)
        #expect(ids.count == expected.samples.count)
        let after = try await BridgeProcess.run(["outbox", "--store", store, "--json"], directory: scratch.url)
        #expect(try jsonObject(after.stdout)["pending"] as? Int == 0)
    }

    @Test func unreachableBrokerKeepsSamplesQueuedAndExitsWithTempfail() async throws {
        let scratch = try ScratchDirectory("mqtt-bridge-")
        let recording = BridgeProcess.recording("thermometer-fahrenheit.jsonl")
        let port = try MosquittoBroker.freeLoopbackPort()
        let store = scratch.path("store.sqlite")
        let result = try await BridgeProcess.run(
            [
                "replay", "--store", store, "--time-zone", "UTC", "--mqtt-wait", "1",
                "--mqtt", "mqtt://127.0.0.1:\(port)", recording,
            ],
            directory: scratch.url
        )
        #expect(result.status == 75, "\(result.stderr)")
        #expect(result.stderr.contains("still in the outbox"))
        let table = try await BridgeProcess.run(["outbox", "--store", store], directory: scratch.url)
        #expect(table.stdout.contains("1 pending"))
        #expect(table.stdout.contains("carebridge/02_00_00_00_00_04/bodyTemperature"))
        let cleared = try await BridgeProcess.run(["outbox", "--store", store, "--clear"], directory: scratch.url)
        #expect(cleared.stdout.contains("dropped 1 pending entry"))
        let empty = try await BridgeProcess.run(["outbox", "--store", store, "--json"], directory: scratch.url)
        #expect(try jsonObject(empty.stdout)["pending"] as? Int == 0)
    }
}
