import Foundation
import TestSupport
import Testing

/// `carebridge alerts deliver --mqtt mqtts://…` with the password from a file, against a real mosquitto that
/// knows only that account and has a TLS listener whose certificate a CA made at test time signed.
@Suite(
    "alerts deliver --mqtt mqtts:// with a password file",
    .enabled(if: MosquittoBroker.testsEnabled, "needs mosquitto; \(MosquittoBroker.installHint)")
)
struct AlertsDeliverTLSTests {
    static let plan = """
        {"tasks": [
          {"id": "pain", "title": "Back pain", "kind": "assessment",
           "schedule": {"timeZone": "Europe/Berlin",
                        "elements": [{"start": "2026-11-01T00:00:00", "interval": {"days": 1}, "duration": "allDay"}]},
           "answer": {"type": "scale", "min": 0, "max": 10},
           "alerts": [{"id": "high", "severity": "critical", "when": {">=": 7}, "message": "Pain {value} on {day}"}]}
        ]}
        """

    /// A store with ``plan`` and a pain answer of 8, which opened alert 1 (rule `high`).
    static func storeWithOpenAlert(in scratch: ScratchDirectory) async throws -> String {
        let store = scratch.path("store.sqlite")
        let plan = scratch.path("plan.json")
        try Self.plan.write(toFile: plan, atomically: true, encoding: .utf8)
        #expect(
            try await BridgeProcess.run(["plan", "apply", plan, "--store", store], directory: scratch.url).status == 0
        )
        let answered = try await BridgeProcess.run(
            ["complete", "pain", "--at", "2026-11-10T09:00", "--value", "8", "--store", store],
            directory: scratch.url
        )
        #expect(answered.stdout.contains("alert 1 (critical)"), "\(answered.stdout)\(answered.stderr)")
        return store
    }

    @Test func alertsAreDeliveredOverTLSWithThePasswordFromAFileAndAWrongOneIsRefusedUnshown() async throws {
        let scratch = try ScratchDirectory("mqtt-bridge-")
        let authority = try TestCertificateAuthority()
        let server = try authority.issueServer(named: "broker", dnsNames: ["localhost"])
        let broker = try MosquittoBroker(
            allowAnonymous: false,
            users: ["bridge": "alert-s3cret"],
            tls: .init(certificate: server.certificate, key: server.key)
        )
        try broker.start()
        let store = try await Self.storeWithOpenAlert(in: scratch)

        let url = "mqtts://bridge@localhost:\(broker.tlsPort!)"
        let wrong = scratch.path("wrong-password")
        try "guessed\n".write(toFile: wrong, atomically: true, encoding: .utf8)
        let refused = try await BridgeProcess.run(
            [
                "alerts", "deliver", "--store", store, "--mqtt", url, "--mqtt-ca-file", authority.certificate,
                "--mqtt-password-file", wrong, "--wait", "1",
            ],
            directory: scratch.url
        )
        #expect(refused.status == 75, "\(refused.stderr)")
        #expect(!refused.stderr.contains("guessed") && !refused.stdout.contains("guessed"))
        #expect(broker.log.contains("not authorised") || broker.log.contains("not authorized"), "\(broker.log)")

        let passwordFile = scratch.path("mqtt-password")
        try "alert-s3cret\n".write(toFile: passwordFile, atomically: true, encoding: .utf8)
        let delivered = try await BridgeProcess.run(
            [
                "alerts", "deliver", "--store", store, "--mqtt", url, "--mqtt-ca-file", authority.certificate,
                "--mqtt-password-file", passwordFile, "--wait", "10",
            ],
            directory: scratch.url
        )
        #expect(delivered.status == 0, "\(delivered.stderr)")
        #expect(delivered.stdout.contains("alert notifications pending: 0"))
        #expect(!delivered.stderr.contains("alert-s3cret"))
        #expect(broker.log.contains("on port \(broker.tlsPort!)"))
        #expect(broker.log.contains("Received PUBLISH from carebridge-alerts-"), "\(broker.log)")

        // TLS options need an mqtts:// URL here too.
        let plain = try await BridgeProcess.run(
            ["alerts", "deliver", "--store", store, "--mqtt", "mqtt://localhost:1", "--mqtt-ca-file", "ca.pem"],
            directory: scratch.url
        )
        #expect(plain.status == 64 && plain.stderr.contains("--mqtt-ca-file needs a TLS broker URL"))
    }
}
