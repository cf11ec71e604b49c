import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// CareBridge against a real Home Assistant (``HomeAssistantServer``): what Home Assistant shows, read through its
/// REST API.
@Suite(
    "CareBridge in a real Home Assistant",
    .serialized,
    .enabled(if: HomeAssistantServer.testsEnabled, "\(HomeAssistantServer.installHint)"),
    .homeAssistant
)
struct HomeAssistantTests {
    @Test func everyNewSensorShowsItsReadingAfterTheFirstReplay() async throws {
        let home = try #require(HomeAssistantServer.current)
        let scratch = try ScratchDirectory("home-assistant-")
        let store = scratch.path("store.sqlite")
        let recordings = [
            "weight-scale-stored-burst.jsonl", "thermometer-fahrenheit.jsonl", "blood-pressure-kpa.jsonl",
        ]
        .map(BridgeProcess.recording)
        // New sensors, each announced right before its first reading: Home Assistant subscribes to a sensor's
        // state topic only after it read the config.
        let replay = try await BridgeProcess.run(
            ["replay", "--store", store, "--time-zone", "UTC", "--mqtt", "mqtt://127.0.0.1:\(home.broker.port)"]
                + recordings,
            directory: scratch.url
        )
        #expect(replay.status == 0, "\(replay.stderr)")
        let listed = try await BridgeProcess.run(
            ["samples", "--store", store, "--time-zone", "UTC", "--json"],
            directory: scratch.url
        )
        let samples = try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]] ?? []
        var idsBySensor: [String: Set<String>] = [:]
        for sample in samples {
            let key = "\(ExpectedSamples.deviceID(sample))/\(sample["type"] as? String ?? "?")"
            idsBySensor[key, default: []].insert(sample["id"] as? String ?? "")
        }
        let types = Set(samples.compactMap { $0["type"] as? String })
        #expect(types.isSuperset(of: ["bodyMass", "bodyTemperature", "bloodPressureSystolic"]))
        let allIDs = Set(idsBySensor.values.joined())

        // Every sensor ends up showing one of its readings, none stays unknown.
        var shown: [[String: Any]] = []
        try await waitUntil(
            "Home Assistant shows a reading on each of \(idsBySensor.count) sensors",
            timeout: .seconds(180)
        ) {
            shown = try await home.states().filter { state in
                let attributes = state["attributes"] as? [String: Any] ?? [:]
                return allIDs.contains(attributes["id"] as? String ?? "")
            }
            return shown.count == idsBySensor.count
                && shown.allSatisfy { !["unknown", "unavailable"].contains($0["state"] as? String ?? "") }
        }
        for state in shown {
            let attributes = state["attributes"] as? [String: Any] ?? [:]
            let id = attributes["id"] as? String ?? ""
            let sensor = idsBySensor.first { $0.value.contains(id) }?.key
            #expect(sensor != nil, "\(state)")
            #expect(Double(state["state"] as? String ?? "") == attributes["value"] as? Double, "\(state)")
            #expect(attributes["unit_of_measurement"] as? String == attributes["unit"] as? String)
        }
        // One entity per device and type: no duplicates (ids of CareBridge sample sensors end in `_<n>` when
        // Home Assistant had to rename one).
        let names = shown.compactMap { $0["entity_id"] as? String }
        #expect(Set(names).count == idsBySensor.count)
        #expect(!names.contains { $0.hasSuffix("_2") }, "\(names)")
    }

    @Test func alertSensorFollowsAlertsDeliverAndNotAReplayThatEnds() async throws {
        let home = try #require(HomeAssistantServer.current)
        let scratch = try ScratchDirectory("home-assistant-")
        let store = try await AlertsDeliverTLSTests.storeWithOpenAlert(in: scratch)
        let url = "mqtt://127.0.0.1:\(home.broker.port)"
        let follow = ["alerts", "deliver", "--store", store, "--mqtt", url, "--follow", "--interval", "1"]

        func alertState() async throws -> String? {
            let alert = try await home.states().first {
                ($0["entity_id"] as? String ?? "").hasPrefix("binary_sensor.")
                    && ($0["attributes"] as? [String: Any])?["friendly_name"] as? String
                        == "CareBridge alerts pain high"
            }
            return alert?["state"] as? String
        }
        func running() async throws -> String? {
            try await home.state("binary_sensor.carebridge_alerts_running")?["state"] as? String
        }

        let deliver = try BridgeProcess(follow, directory: scratch.url)
        try await waitUntil("the alert sensor is on and alert delivery running", timeout: .seconds(120)) {
            let (alert, publisher) = (try await alertState(), try await running())
            return alert == "on" && publisher == "on"
        }

        // A replay that ends publishes no availability: the open alert stays on.
        let replay = try await BridgeProcess.run(
            [
                "replay", "--store", scratch.path("other.sqlite"), "--mqtt", url,
                BridgeProcess.recording("pulse-oximeter-history.jsonl"),
            ],
            directory: scratch.url
        )
        #expect(replay.status == 0, "\(replay.stderr)")
        let statusPublishes = home.broker.log.split(separator: "\n").filter {
            $0.hasPrefix("Received PUBLISH from carebridge-") && !$0.contains("carebridge-alerts-")
                && $0.contains("'carebridge/status'")
        }
        #expect(statusPublishes.isEmpty, "\(statusPublishes)")
        #expect(try await alertState() == "on")

        // Ending cleanly says offline; so does the last will of one that dies.
        kill(deliver.process.processIdentifier, SIGTERM)
        #expect(try await deliver.wait().status == 0)
        try await waitUntil("the alert sensor is unavailable after alerts deliver ended", timeout: .seconds(120)) {
            let (alert, publisher) = (try await alertState(), try await running())
            return alert == "unavailable" && publisher == "off"
        }
        let again = try BridgeProcess(follow, directory: scratch.url)
        try await waitUntil("the alert sensor is on again", timeout: .seconds(120)) {
            let (alert, publisher) = (try await alertState(), try await running())
            return alert == "on" && publisher == "on"
        }
        again.kill()
        try await waitUntil("the last will turns the alert sensor unavailable", timeout: .seconds(180)) {
            let (alert, publisher) = (try await alertState(), try await running())
            return alert == "unavailable" && publisher == "off"
        }
    }
}
