import Foundation
import TestSupport
import Testing

/// A webhook URL that holds a secret never has to be on the command line or in the unit file: it comes from a file
/// or the systemd credential `webhook-url`, and no message shows it.
@Suite struct WebhookSecretsCommandTests {
    static let secret = "s3cr3t-T0KEN"

    /// This test's directory, removed when the test ends.
    let scratch: ScratchDirectory

    init() throws { scratch = try ScratchDirectory("webhook-secrets-") }

    func expectNoSecret(_ result: CarebridgeProcess.Result, _ context: String = "") {
        #expect(!result.stderr.contains(Self.secret), "\(context): \(result.stderr)")
        #expect(!result.stdout.contains(Self.secret), "\(context): \(result.stdout)")
    }

    @Test(arguments: [
        (["alerts", "deliver"], "--webhook", "--webhook-url-file"),
        (["run"], "--alert-webhook", "--alert-webhook-url-file"),
    ])
    func credentialsInACommandLineURLAreRefusedWithoutBeingShown(
        command: [String],
        option: String,
        fileOption: String
    )
        async throws
    {
        let store = scratch.path("store.sqlite")
        let result = try await CarebridgeProcess.run(
            command + [option, "http://alerts:\(Self.secret)@127.0.0.1:8080/hook", "--store", store]
        )
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains(fileOption) && result.stderr.contains("`ps`"), "\(result.stderr)")
        expectNoSecret(result, option)
        #expect(!FileManager.default.fileExists(atPath: store))
    }

    @Test func aURLFromAFileOrTheSystemdCredentialIsUsedAndNeverShown() async throws {
        let file = try scratch.writeSecret(
            "webhook-url",
            "http://alerts:\(Self.secret)@127.0.0.1:1/hook?token=\(Self.secret)\n"
        )
        let fromFile = try await CarebridgeProcess.run([
            "alerts", "deliver", "--webhook-url-file", file, "--wait", "0", "--store", scratch.path("a.sqlite"),
        ])
        #expect(fromFile.status == 0, "\(fromFile.stderr)")
        #expect(fromFile.stdout.contains("alert notifications pending: 0"), "\(fromFile.stdout)")
        #expect(!fromFile.stderr.contains("warning"), "\(fromFile.stderr)")
        expectNoSecret(fromFile, "file")

        let credentials = scratch.path("credentials")
        try FileManager.default.createDirectory(atPath: credentials, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: file, toPath: credentials + "/webhook-url")
        let fromCredential = try await CarebridgeProcess.run(
            ["alerts", "deliver", "--wait", "0", "--store", scratch.path("b.sqlite")],
            environment: ["CREDENTIALS_DIRECTORY": credentials]
        )
        #expect(fromCredential.status == 0, "\(fromCredential.stderr)")
        expectNoSecret(fromCredential, "credential")
        let without = try await CarebridgeProcess.run(
            ["alerts", "deliver", "--wait", "0", "--store", scratch.path("c.sqlite")],
            environment: ["CREDENTIALS_DIRECTORY": scratch.path("none")]
        )
        #expect(without.status == 64 && without.stderr.contains("--webhook-url-file"), "\(without.stderr)")
    }

    @Test func aBadURLInTheFileIsNamedByItsFileNotShown() async throws {
        let file = scratch.path("webhook-url")
        try "https://alerts:\(Self.secret)@127.0.0.1:99999/hook?token=\(Self.secret)\n".write(
            toFile: file,
            atomically: true,
            encoding: .utf8
        )
        let store = scratch.path("store.sqlite")
        let bad = try await CarebridgeProcess.run(["run", "--alert-webhook-url-file", file, "--store", store])
        #expect(bad.status == 64 && bad.stderr.contains(file) && bad.stderr.contains("65535"), "\(bad.stderr)")
        expectNoSecret(bad, "bad")
        let missing = try await CarebridgeProcess.run([
            "alerts", "deliver", "--webhook-url-file", scratch.path("nope"), "--store", store,
        ])
        #expect(missing.status == 66 && missing.stderr.contains(scratch.path("nope")), "\(missing.stderr)")
        #expect(!FileManager.default.fileExists(atPath: store))
    }

    @Test func aQueryOnTheCommandLineDrawsAWarningAndASharedFileToo() async throws {
        let query = try await CarebridgeProcess.run([
            "alerts", "deliver", "--webhook", "http://127.0.0.1:1/hook?token=abc", "--wait", "0", "--store",
            scratch.path("a.sqlite"),
        ])
        #expect(query.status == 0, "\(query.stderr)")
        #expect(query.stderr.contains("warning: --webhook") && query.stderr.contains("--webhook-url-file"))
        #expect(!query.stderr.contains("token=abc"), "\(query.stderr)")

        let file = scratch.path("webhook-url")
        try "http://127.0.0.1:1/hook\n".write(toFile: file, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file)
        let shared = try await CarebridgeProcess.run([
            "alerts", "deliver", "--webhook-url-file", file, "--wait", "0", "--store", scratch.path("b.sqlite"),
        ])
        #expect(shared.status == 0, "\(shared.stderr)")
        #expect(shared.stderr.contains("--webhook-url-file \(file) can be read by other users"), "\(shared.stderr)")
    }

    @Test(arguments: [
        "--store /s.sqlite --alert-webhook https://hooks.example.org/services/\(secret)",
        "--alert-webhook=https://u:\(secret)@hooks.example.org/x", "--alert-webhook http://127.0.0.1/x?key=\(secret)",
    ])
    func systemdUnitNeverWritesAWebhookURL(arguments: String) async throws {
        let result = try await CarebridgeProcess.run(["systemd-unit", "--arguments", arguments])
        #expect(result.status == 64, "\(result.stdout)")
        #expect(result.stderr.contains("--webhook-credential"), "\(result.stderr)")
        expectNoSecret(result, arguments)
    }

    @Test func systemdUnitLoadsTheWebhookURLAsACredential() async throws {
        let result = try await CarebridgeProcess.run([
            "systemd-unit", "--webhook-credential", "/etc/carebridge/webhook-url", "--arguments",
            "--store /var/lib/carebridge/store.sqlite",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("LoadCredential=webhook-url:/etc/carebridge/webhook-url"), "\(result.stdout)")
    }
}
