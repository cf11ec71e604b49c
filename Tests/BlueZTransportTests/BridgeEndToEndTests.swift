import BlueZTransport
import BridgeFoundation
import Foundation
import TestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The real `carebridge` binary against the fake bluetoothd, driven by the Recordings/ sessions: the samples
/// and completed events it stores must be exactly those a replay of the same recording gives.
extension FakeBlueZSuites {
    @Suite
    struct BridgeEndToEndTests {
        static let plan = FakeBlueZ.recordings.appendingPathComponent("care-plan.json").path

        /// The live-independent part of a sample: what the device said and what it became.
        struct SampleKey: Hashable, CustomStringConvertible {
            var type: String
            var value: String
            var unit: String
            var payload: String
            var deviceTime: String?
            var description: String { "\(type) \(value) \(unit) \(payload) \(deviceTime ?? "-")" }
        }

        static func keys(fromGolden recording: String) throws -> [SampleKey] {
            let url = FakeBlueZ.packageRoot.appendingPathComponent(
                "Tests/SampleIngestTests/Golden/" + recording.replacingOccurrences(of: ".jsonl", with: ".golden.jsonl")
            )
            let text = try String(contentsOf: url, encoding: .utf8)
            return try text.split(separator: "\n").compactMap { line in
                let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                guard object["type"] != nil else { return nil }
                return key(object)
            }.sorted { $0.description < $1.description }
        }

        static func key(_ object: [String: Any]) -> SampleKey {
            func text(_ any: Any?) -> String {
                if let number = any as? NSNumber { return "\(number.doubleValue)" }
                return any.map { "\($0)" } ?? ""
            }
            let source = object["source"] as? [String: Any]
            return SampleKey(
                type: text(object["type"]),
                value: text(object["value"]),
                unit: text(object["unit"]),
                payload: text(object["payload"] ?? source?["payload"]),
                deviceTime: (object["deviceTime"] ?? source?["deviceTime"]).map { "\($0)" }
            )
        }

        static func storedKeys(_ store: String) async throws -> [SampleKey] {
            let result = try await CarebridgeBinary.run([
                "samples", "--store", store, "--json", "--from", "2000-01-01", "--to", "2100-01-01",
            ])
            #expect(result.status == 0, "\(result.stderr)")
            let array = try #require(
                try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]]
            )
            return array.map(key).sorted { $0.description < $1.description }
        }

        struct EventKey: Hashable {
            var task: String
            var occurrence: Int
            var completed: Bool
            var values: [String]
        }

        static func events(_ store: String) async throws -> [EventKey] {
            let result = try await CarebridgeBinary.run([
                "events", "--store", store, "--json", "--from", "2026-11-01", "--to", "2026-12-31",
            ])
            #expect(result.status == 0, "\(result.stderr)")
            let array = try #require(
                try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]]
            )
            return array.map { event in
                let values = (event["values"] as? [[String: Any]] ?? []).map {
                    "\($0["value"] ?? "") \($0["unit"] ?? "")"
                }
                return EventKey(
                    task: "\(event["task"] ?? "")",
                    occurrence: (event["occurrence"] as? NSNumber)?.intValue ?? -1,
                    completed: (event["completed"] as? Bool) ?? false,
                    values: values
                )
            }.filter(\.completed)
        }

        static func temporaryStore() -> String {
            FileManager.default.temporaryDirectory.appendingPathComponent("carebridge-e2e-\(UUID().uuidString).sqlite")
                .path
        }

        /// Starts `carebridge run` against the fake, waits until it discovers.
        static func startBridge(
            _ fake: FakeBlueZ,
            store: String,
            plan: String = Self.plan,
            extra: [String] = []
        ) async throws -> CarebridgeBinary {
            let bridge = try CarebridgeBinary(
                ["run", "--store", store, "--plan", plan, "--clock-skew-tolerance", "1000000000"] + extra,
                bus: fake.address,
                environment: ["CAREBRIDGE_LOG_LEVEL": "info"]
            )
            let discovering = try await FakeBlueZ.eventually(timeout: .seconds(120)) {
                try await fake.journal().contains { $0.hasPrefix("StartDiscovery") } || !bridge.process.isRunning
            }
            #expect(discovering && bridge.process.isRunning, "bridge did not start: \(bridge.stderr)")
            return bridge
        }

        /// Waits for the fake to finish a playback, then for the bridge to have taken in what it emitted (`ingested`).
        static func settle(
            _ fake: FakeBlueZ,
            timeout: Duration = .seconds(120),
            until ingested: () async throws -> Bool
        ) async throws {
            let status = try await fake.waitForPlayback(timeout: timeout)
            #expect(status.done, "playback did not finish: \(status.pending) events pending")
            try await waitUntil("the bridge took in the playback", timeout: timeout, interval: .milliseconds(250)) {
                try await ingested()
            }
        }

        @Test(
            "run stores exactly the replay's samples and completed events",
            arguments: [
                "weight-scale-morning-weigh-in.jsonl",
                "thermometer-fahrenheit.jsonl",
                "heart-rate-strap-20-minutes.jsonl",
                "mi-body-composition-scale-2-broadcast.jsonl",
            ]
        )
        func runMatchesReplay(recording: String) async throws {
            let fake = try await FakeBlueZ()
            defer { fake.stop() }
            try await fake.addAdapter()
            let store = Self.temporaryStore()
            defer { try? FileManager.default.removeItem(atPath: store) }
            let bridge = try await Self.startBridge(fake, store: store)
            let expected = try Self.keys(fromGolden: recording)
            try await fake.play(FakeBlueZ.recordings.appendingPathComponent(recording))
            try await Self.settle(fake) { try await Self.storedKeys(store).count >= expected.count }
            let status = await bridge.terminate()
            #expect(status == 0, "carebridge run: \(bridge.stderr.suffix(3000))")

            let stored = try await Self.storedKeys(store)
            #expect(stored.count == expected.count, "stored \(stored.count) samples, golden has \(expected.count)")
            #expect(stored == expected)

            let replayStore = Self.temporaryStore()
            defer { try? FileManager.default.removeItem(atPath: replayStore) }
            let replay = try await CarebridgeBinary.run([
                "replay", "--store", replayStore, "--plan", Self.plan,
                FakeBlueZ.recordings.appendingPathComponent(recording).path,
            ])
            #expect(replay.status == 0, "\(replay.stderr)")
            #expect(try await Self.events(store) == (try await Self.events(replayStore)))

            let journal = try await fake.journal()
            #expect(!journal.contains { $0.hasPrefix("RemoveDevice") })
            if let connect = journal.firstIndex(where: { $0.hasPrefix("Connect ") }) {
                let lastStopBefore = journal[..<connect].lastIndex { $0.hasPrefix("StopDiscovery") }
                let lastStartBefore = journal[..<connect].lastIndex { $0.hasPrefix("StartDiscovery") }
                #expect(
                    lastStopBefore != nil && lastStopBefore! > lastStartBefore!,
                    "discovery must be stopped before Connect"
                )
            }
            #expect(journal.filter { $0.hasPrefix("StartNotify") }.allSatisfy { $0.hasSuffix("match=yes") })
        }

        @Test func weighInCompletesThePlansEvent() async throws {
            let fake = try await FakeBlueZ()
            defer { fake.stop() }
            try await fake.addAdapter()
            let store = Self.temporaryStore()
            defer { try? FileManager.default.removeItem(atPath: store) }
            let recordings = FileManager.default.temporaryDirectory.appendingPathComponent(
                "recordings-\(UUID().uuidString)"
            )
            defer { try? FileManager.default.removeItem(at: recordings) }
            let bridge = try await Self.startBridge(fake, store: store, extra: ["--record", recordings.path])
            let weighIn = "weight-scale-morning-weigh-in.jsonl"
            try await fake.play(FakeBlueZ.recordings.appendingPathComponent(weighIn))
            let expected = try Self.keys(fromGolden: weighIn)
            try await Self.settle(fake) { try await Self.storedKeys(store).count >= expected.count }
            #expect(await bridge.terminate() == 0)
            let completed = try await Self.events(store)
            #expect(completed.map(\.task) == ["weigh-in"])
            #expect(completed.first?.values == ["72.5 kg"])
            #expect(bridge.stderr.contains("device session established"))

            // --record wrote the session; replaying it stores the same samples again (so: nothing new).
            let files = try FileManager.default.contentsOfDirectory(atPath: recordings.path).filter {
                $0.hasSuffix(".jsonl")
            }
            #expect(files.count == 1)
            let replayStore = Self.temporaryStore()
            defer { try? FileManager.default.removeItem(atPath: replayStore) }
            let replay = try await CarebridgeBinary.run([
                "replay", "--store", replayStore, recordings.appendingPathComponent(files[0]).path,
            ])
            #expect(replay.status == 0, "\(replay.stderr)")
            #expect(try await Self.storedKeys(replayStore) == (try await Self.storedKeys(store)))
        }

        /// `run --fhir-server`: each reading the bridge stores while it runs reaches the FHIR server through the
        /// outbox, in the PHD IG shape (the upload tests' local FHIR server), without a duplicate; the token stays out
        /// of the bridge's output.
        @Test(.enabled(if: TestReceiver.testsEnabled, "no /usr/bin/python3"))
        func runSendsEachStoredReadingToTheFHIRServer() async throws {
            let fake = try await FakeBlueZ()
            defer { fake.stop() }
            try await fake.addAdapter()
            let store = Self.temporaryStore()
            defer { try? FileManager.default.removeItem(atPath: store) }
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fhir-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: directory) }
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let tokenFile = directory.appendingPathComponent("fhir.token").path
            try ScratchDirectory.writeSecret("run-fhir-token-5d1e\n", to: tokenFile)
            let server = try FHIRTestServer(directory: directory.appendingPathComponent("server"), tokenFile: tokenFile)
            try await server.start()
            defer { server.stop() }

            let bridge = try await Self.startBridge(
                fake,
                store: store,
                extra: ["--fhir-server", server.url, "--fhir-token-file", tokenFile]
            )
            let weighIn = "weight-scale-morning-weigh-in.jsonl"
            try await fake.play(FakeBlueZ.recordings.appendingPathComponent(weighIn))
            let expected = try Self.keys(fromGolden: weighIn)
            try await Self.settle(fake) { try await Self.storedKeys(store).count >= expected.count }
            // Body weight (LOINC 29463-7) arrives while the bridge runs.
            try await waitUntil(
                "the FHIR server has the weigh-in",
                timeout: .seconds(120),
                interval: .milliseconds(250)
            ) {
                try server.resources().contains {
                    $0.type == "Observation" && "\($0.resource["code"] ?? "")".contains("29463-7")
                }
            }
            #expect(await bridge.terminate() == 0, "\(bridge.stderr)")
            let resources = try server.resources()
            #expect(resources.contains { $0.type == "Device" && "\($0.resource["meta"] ?? "")".contains("PhdDevice") })
            let identifiers = resources.compactMap { stored in
                (stored.resource["identifier"] as? [[String: Any]])?.first.map { "\(stored.type) \($0["value"] ?? "")" }
            }
            #expect(Set(identifiers).count == identifiers.count, "nothing twice: \(identifiers)")
            #expect(try server.requestStatuses().allSatisfy { $0 == 200 })
            #expect(!bridge.stdout.contains("run-fhir-token-5d1e") && !bridge.stderr.contains("run-fhir-token-5d1e"))
        }

        /// `run --http`: the care app is one more service of the bridge, answers while the radio works, shows the
        /// weigh-in the bridge stored, and stops with the rest on SIGTERM.
        @Test func runServesTheCareAppBesideTheRadioAndStopsWithIt() async throws {
            let fake = try await FakeBlueZ()
            defer { fake.stop() }
            try await fake.addAdapter()
            let store = Self.temporaryStore()
            defer { try? FileManager.default.removeItem(atPath: store) }
            let password = store + ".password"
            defer { try? FileManager.default.removeItem(atPath: password) }
            try ScratchDirectory.writeSecret("admin password 1\n", to: password)
            let added = try await CarebridgeBinary.run([
                "users", "add", "admin", "--name", "Admin", "--role", "admin", "--password-file", password, "--store",
                store,
            ])
            #expect(added.status == 0, "\(added.stderr)")
            let bridge = try await Self.startBridge(fake, store: store, extra: ["--http", "127.0.0.1:0"])
            var url: String?
            try await waitUntil("the care app listens", timeout: .seconds(180), interval: .milliseconds(100)) {
                url = bridge.stdout.split(separator: "\n").first { $0.hasPrefix("care app listening on ") }
                    .map { String($0.dropFirst("care app listening on ".count)) }
                return url != nil || !bridge.process.isRunning
            }
            let base = try #require(url, "no care app: \(bridge.stderr)")
            try await fake.play(FakeBlueZ.recordings.appendingPathComponent("weight-scale-morning-weigh-in.jsonl"))
            try await Self.settle(fake) { try await Self.events(store).contains { $0.task == "weigh-in" } }
            let (body, response) = try await URLSession.shared.data(from: URL(string: base + "/login")!)
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
            #expect(String(decoding: body, as: UTF8.self).contains("<h1>Sign in</h1>"))
            #expect(await bridge.terminate() == 0, "\(bridge.stderr)")
        }

        @Test func recordThenReplayGivesTheSameSamples() async throws {
            let fake = try await FakeBlueZ()
            defer { fake.stop() }
            try await fake.addAdapter()
            let recording = "thermometer-fahrenheit.jsonl"
            let out = FileManager.default.temporaryDirectory.appendingPathComponent(
                "recorded-\(UUID().uuidString).jsonl"
            ).path
            defer { try? FileManager.default.removeItem(atPath: out) }
            let recorder = try CarebridgeBinary(
                ["record", "--out", out, "--device", "02:00:00:00:00:04"],
                bus: fake.address
            )
            #expect(
                try await FakeBlueZ.eventually(timeout: .seconds(120)) {
                    try await fake.journal().contains { $0.hasPrefix("StartDiscovery") }
                }
            )
            try await fake.play(FakeBlueZ.recordings.appendingPathComponent(recording))
            // The recording ends with the thermometer going away; the file is written when the recorder stops.
            try await Self.settle(fake) { recorder.stderr.contains("device session ended") }
            #expect(await recorder.terminate() == 0, "\(recorder.stderr)")
            let lines = try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n")
            #expect(lines.first?.contains("carebridge-recording") == true)
            #expect(lines.contains { $0.contains("\"indication\"") })

            let store = Self.temporaryStore()
            defer { try? FileManager.default.removeItem(atPath: store) }
            let replay = try await CarebridgeBinary.run([
                "replay", "--store", store, "--time-zone", "Europe/Berlin", out,
            ])
            #expect(replay.status == 0, "\(replay.stderr)")
            // Same payloads, values and device times as the original recording's golden samples. (The recorded
            // session was live: its receive times are today's, so the clock-skew correction is not compared.)
            let expected = try Self.keys(fromGolden: recording).map {
                SampleKey(type: $0.type, value: $0.value, unit: $0.unit, payload: $0.payload, deviceTime: nil)
            }
            let stored = try await Self.storedKeys(store).map {
                SampleKey(type: $0.type, value: $0.value, unit: $0.unit, payload: $0.payload, deviceTime: nil)
            }
            #expect(stored == expected)
        }

        @Test func scanListsDevicesWithTheirProfiles() async throws {
            let fake = try await FakeBlueZ()
            defer { fake.stop() }
            try await fake.addAdapter()
            let scan = try CarebridgeBinary(["scan", "--timeout", "4", "--json"], bus: fake.address)
            #expect(
                try await FakeBlueZ.eventually(timeout: .seconds(120)) {
                    try await fake.journal().contains { $0.hasPrefix("StartDiscovery") }
                }
            )
            try await fake.play(
                FakeBlueZ.recordings.appendingPathComponent("mi-body-composition-scale-2-broadcast.jsonl")
            )
            try await fake.play(FakeBlueZ.recordings.appendingPathComponent("thermometer-fahrenheit.jsonl"))
            #expect(await scan.wait(timeout: .seconds(120)) == 0, "\(scan.stderr)")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(scan.stdout.utf8)) as? [String: Any])
            let devices = try #require(object["devices"] as? [[String: Any]])
            let profiles = Dictionary(
                uniqueKeysWithValues: devices.map { ("\($0["address"]!)", "\($0["profile"] ?? "-")") }
            )
            #expect(profiles["02:00:00:00:00:08"] == "mi-body-composition-scale-2")
            #expect(profiles["02:00:00:00:00:04"] == "health-thermometer")
            // scan never connects.
            #expect(!(try await fake.journal()).contains { $0.hasPrefix("Connect ") })
        }

        @Test func adaptersShowsBlueZState() async throws {
            let fake = try await FakeBlueZ()
            defer { fake.stop() }
            try await fake.addAdapter("hci0")
            let result = try await CarebridgeBinary.run(["adapters", "--json"], bus: fake.address)
            #expect(result.status == 0, "\(result.stderr)")
            let object = try #require(
                try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
            )
            let adapters = try #require(object["adapters"] as? [[String: Any]])
            let hci0 = try #require(adapters.first { $0["name"] as? String == "hci0" })
            let bluez = try #require(hci0["bluez"] as? [String: Any])
            #expect(bluez["address"] as? String == "00:01:02:03:04:05")
            #expect(bluez["powered"] as? Bool == true)
        }

        @Test func adaptersWithNoControllerExitsWith69AsDocumented() async throws {
            let fake = try await FakeBlueZ()
            defer { fake.stop() }
            let result = try await CarebridgeBinary.run(["adapters"], bus: fake.address)
            #expect(result.status == 69, "\(result.stdout) \(result.stderr)")
            #expect(result.stderr.contains("no Bluetooth adapter"), "\(result.stderr)")
        }

        @Test func bluetoothdNotRunningExitsWith69AndSaysSo() async throws {
            let fake = try await FakeBlueZ(startBlueZ: false)
            defer { fake.stop() }
            let result = try await CarebridgeBinary.run(["scan", "--timeout", "1"], bus: fake.address)
            #expect(result.status == 69)
            #expect(result.stderr.contains("bluetoothd is not running"))
        }
    }
}
