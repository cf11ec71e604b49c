import Foundation
import TestSupport
import Testing

/// `alerts deliver --smtp`: alerts e-mailed to the contacts who receive them, through a real SMTP relay
/// (aiosmtpd), kept while the relay is down, sent once, and audited by channel.
@Suite(.serialized, .enabled(if: SMTPRelay.testsEnabled, "needs aiosmtpd; \(SMTPRelay.installHint)"))
struct AlertsEmailCommandTests {
    let scratch: ScratchDirectory
    var directory: URL { scratch.url }
    let storePath: String

    init() throws {
        scratch = try ScratchDirectory("carebridge-cli-")
        storePath = scratch.url.appendingPathComponent("store.sqlite").path
    }

    func run(_ arguments: [String]) async throws -> CarebridgeProcess.Result {
        try await CarebridgeProcess.run(arguments + ["--store", storePath], environment: ["TZ": "Europe/Berlin"])
    }

    /// Bob's weigh-in alerts (warning) above 70 kg; his GP receives alerts, the cardiologist critical ones only,
    /// his partner reports only; then a 72.5 kg weigh-in raises one.
    func bobWithAnAlert() async throws {
        let text = """
            {"patient": {"id": "bob", "name": "Bob Brown"},
             "contacts": [{"id": "gp", "name": "Dr. Gray", "emails": ["gray@practice.example"], "receives": ["alerts"]},
                          {"id": "cardio", "name": "Dr. Weber", "emails": ["weber@clinic.example"],
                           "receives": ["alerts"], "alertSeverity": "critical"},
                          {"id": "sam", "name": "Sam", "category": "personal", "emails": ["sam@home.example"],
                           "receives": ["reports"]}],
             "tasks": [{"id": "weigh", "title": "Weigh yourself", "kind": "assessment",
               "schedule": {"timeZone": "Europe/Berlin",
                            "elements": [{"start": "2026-11-01T00:00:00", "interval": {"days": 1}, "duration": "allDay"}]},
               "linkage": {"type": "bodyMass", "unit": "kg", "aggregation": "first"},
               "alerts": [{"id": "heavy", "when": {">": 70, "unit": "kg"}}]}]}
            """
        let path = directory.appendingPathComponent("bob.json").path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        let applied = try await run(["plan", "apply", path])
        #expect(applied.status == 0, "\(applied.stderr)")
        let replay = try await run([
            "replay", ReplayCommandTests.recording("weight-scale-morning-weigh-in.jsonl"),
        ])
        #expect(replay.status == 0, "\(replay.stderr)")
    }

    @Test func anAlertIsMailedToTheContactsWhoReceiveItOnceTheRelayIsUpAndAuditedAsEmail() async throws {
        try await bobWithAnAlert()
        let relay = try SMTPRelay()
        let deliver = [
            "alerts", "deliver", "--smtp", "smtp://127.0.0.1:\(relay.port)", "--smtp-insecure",
            "--smtp-from", "CareBridge <alerts@ward.example>", "--wait", "5",
        ]
        let down = try await run(deliver)
        #expect(down.status == 75 && down.stderr.contains("email notification(s) still pending"), "\(down.stderr)")
        try await relay.start()
        let up = try await run(deliver)
        #expect(up.status == 0, "\(up.stderr)")
        #expect(try await run(deliver).status == 0)
        let messages = try relay.messages
        #expect(messages.count == 1, "sent once")
        #expect(messages.first?.recipients == ["gray@practice.example"])
        #expect(messages.first?.subject.hasPrefix("[CareBridge] warning alert for Bob Brown: ") == true)
        let shared = try await run(["shared", "--json"])
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(shared.stdout.utf8)) as? [[String: Any]])
        #expect(entries.map { $0["contact"] as? String } == ["gp"])
        #expect(entries.first?["channel"] as? String == "email" && entries.first?["what"] as? String == "alert")
    }

    @Test func eMailOptionsAreCheckedAndTheCredentialsNeverShow() async throws {
        let inURL = try await run([
            "alerts", "deliver", "--smtp", "smtp://ward3:hunter22@mail.example.org", "--smtp-from", "a@ward.example",
        ])
        #expect(inURL.status == 64 && inURL.stderr.contains("--smtp-credentials-file"), "\(inURL.stderr)")
        #expect(!inURL.stderr.contains("hunter22"))
        let plain = try await run([
            "alerts", "deliver", "--smtp", "smtp://mail.example.org", "--smtp-from", "a@ward.example",
            "--smtp-insecure",
        ])
        #expect(plain.status == 64 && plain.stderr.contains("on this machine"), "\(plain.stderr)")
        let noFrom = try await run(["alerts", "deliver", "--smtp", "smtp://mail.example.org"])
        #expect(noFrom.status == 64 && noFrom.stderr.contains("--smtp-from"), "\(noFrom.stderr)")
        let missing = directory.appendingPathComponent("nope").path
        let unreadable = try await run([
            "alerts", "deliver", "--smtp", "smtp://127.0.0.1:1", "--smtp-insecure", "--smtp-from", "a@ward.example",
            "--smtp-credentials-file", missing,
        ])
        #expect(unreadable.status == 66 && unreadable.stderr.contains(missing), "\(unreadable.stderr)")
        let help = try await run(["alerts", "deliver", "--help"])
        #expect(help.stdout.contains("carebridge alerts deliver --smtp smtp://"))
        #expect(help.stdout.contains("--smtp-credentials-file"))
    }
}
