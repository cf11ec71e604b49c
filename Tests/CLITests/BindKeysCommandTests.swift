import Foundation
import TestSupport
import Testing

/// `replay --bind-keys FILE`: an encrypted Xiaomi S400 weigh-in (xiaomi-ble's published advertisements and key,
/// commit 509f516e46dfd21172a70c7e66955ecf3f0923e6) is stored once with its key, nothing without it, and the key is
/// never printed.
@Suite struct BindKeysCommandTests {
    static let key = "0728974d657a4b60964c1b1677f35f7c"
    static let first = "4859d53b0abc078ff2348c844138e930220000009e538599"
    static let second = "4859d53b0bd6ef0b25db72785e7e2f46d6000000d8642df6"

    /// A directory with the recording (the weigh-in advertised, then advertised again) and a store path.
    func setUp() throws -> (directory: URL, recording: String, store: String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bind-keys-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var lines = [
            #"{"format": "carebridge-recording", "version": 1, "recordedAt": "2025-04-10T02:03:30Z", "timeZone": "UTC"}"#
        ]
        for (index, bytes) in [Self.first, Self.first, Self.second, Self.first, Self.second].enumerated() {
            lines.append(
                #"{"t": \#(Double(index) * 0.4 + 0.5), "kind": "advertisement", "device": "8C:D0:B2:F6:BE:EF", "#
                    + #""serviceData": {"FE95": "\#(bytes)"}}"#
            )
        }
        let recording = directory.appendingPathComponent("s400.jsonl").path
        try (lines.joined(separator: "\n") + "\n").write(toFile: recording, atomically: true, encoding: .utf8)
        return (directory, recording, directory.appendingPathComponent("store.sqlite").path)
    }

    func writeKeys(_ text: String, to path: String, mode: Int) throws {
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
    }

    func newSamples(_ stdout: String) throws -> Int? {
        let json = try #require(try JSONSerialization.jsonObject(with: Data(stdout.utf8)) as? [String: Any])
        return (json["samples"] as? [String: Any])?["new"] as? Int
    }

    @Test func aWeighInWithItsKeyFileIsStoredOnceAndTheKeyIsNeverPrinted() async throws {
        let (directory, recording, store) = try setUp()
        defer { try? FileManager.default.removeItem(at: directory) }
        let keys = directory.appendingPathComponent("bind-keys").path
        try writeKeys("# bathroom scale\n8C:D0:B2:F6:BE:EF \(Self.key)\n", to: keys, mode: 0o600)
        let arguments = ["replay", "--store", store, "--time-zone", "UTC", "--json", "--bind-keys", keys, recording]
        let result = try await CarebridgeProcess.run(arguments, environment: ["XDG_CONFIG_HOME": directory.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try newSamples(result.stdout) == 3, "weight, heart rate and impedance once: \(result.stdout)")
        #expect(!result.stderr.contains("can be read by other users"), "\(result.stderr)")
        let again = try await CarebridgeProcess.run(arguments, environment: ["XDG_CONFIG_HOME": directory.path])
        #expect(try newSamples(again.stdout) == 0)
        for output in [result.stdout, result.stderr, again.stdout, again.stderr] {
            #expect(!output.lowercased().contains(Self.key))
        }
    }

    @Test func theDefaultKeyFileIsReadAndAKeyFileOthersCanReadIsWarnedAbout() async throws {
        let (directory, recording, store) = try setUp()
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(
            at: directory.appendingPathComponent("carebridge"),
            withIntermediateDirectories: true
        )
        let keys = directory.appendingPathComponent("carebridge/bind-keys").path
        try writeKeys("8c:d0:b2:f6:be:ef \(Self.key)\n", to: keys, mode: 0o644)
        let result = try await CarebridgeProcess.run(
            ["replay", "--store", store, "--time-zone", "UTC", "--json", recording],
            environment: ["XDG_CONFIG_HOME": directory.path]
        )
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try newSamples(result.stdout) == 3)
        #expect(result.stderr.contains("\(keys) can be read by other users"), "\(result.stderr)")
    }

    @Test func aSystemdCredentialGivesTheKeysAndTheUnitLoadsIt() async throws {
        let (directory, recording, store) = try setUp()
        defer { try? FileManager.default.removeItem(at: directory) }
        let credentials = directory.appendingPathComponent("credentials")
        try FileManager.default.createDirectory(at: credentials, withIntermediateDirectories: true)
        try writeKeys(
            "8C:D0:B2:F6:BE:EF \(Self.key)\n",
            to: credentials.appendingPathComponent("bind-keys").path,
            mode: 0o600
        )
        let result = try await CarebridgeProcess.run(
            ["replay", "--store", store, "--time-zone", "UTC", "--json", recording],
            environment: ["XDG_CONFIG_HOME": directory.path, "CREDENTIALS_DIRECTORY": credentials.path]
        )
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try newSamples(result.stdout) == 3)
        let unit = try await CarebridgeProcess.run([
            "systemd-unit", "--executable", "/usr/bin/carebridge", "--bind-keys-credential",
            "/etc/carebridge/bind-keys",
        ])
        #expect(unit.status == 0, "\(unit.stderr)")
        #expect(unit.stdout.contains("LoadCredential=bind-keys:/etc/carebridge/bind-keys"), "\(unit.stdout)")
    }

    @Test func withoutAKeyNothingIsStoredAndTheUserIsToldOnce() async throws {
        let (directory, recording, store) = try setUp()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await CarebridgeProcess.run(
            ["replay", "--store", store, "--time-zone", "UTC", "--json", recording],
            environment: ["XDG_CONFIG_HOME": directory.path]
        )
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try newSamples(result.stdout) == 0)
        #expect(result.stderr.components(separatedBy: "no bind key for it").count == 2, "\(result.stderr)")
    }

    @Test func aMalformedKeyFileIsRefusedNamingTheLineNotTheKey() async throws {
        let (directory, recording, store) = try setUp()
        defer { try? FileManager.default.removeItem(at: directory) }
        let keys = directory.appendingPathComponent("bind-keys").path
        try writeKeys("# scales\n8C:D0:B2:F6:BE:EF \(Self.key.dropLast(2))\n", to: keys, mode: 0o600)
        let result = try await CarebridgeProcess.run(
            ["replay", "--store", store, "--time-zone", "UTC", "--bind-keys", keys, recording],
            environment: ["XDG_CONFIG_HOME": directory.path]
        )
        #expect(result.status == 65, "\(result.stderr)")
        #expect(result.stderr.contains("\(keys): line 2: the key is not 32 hex digits"), "\(result.stderr)")
        #expect(!result.stderr.lowercased().contains(Self.key.prefix(20)))
    }
}
