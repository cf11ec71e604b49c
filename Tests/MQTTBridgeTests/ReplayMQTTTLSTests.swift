import Foundation
import TestSupport
import Testing

/// `carebridge replay --mqtt mqtts://…` against a real mosquitto whose TLS listener has a certificate from a CA
/// made at test time; an independent `mosquitto_sub` on the broker's plain listener sees what arrives.
@Suite(
    "replay --mqtt mqtts:// with a real broker and a test CA",
    .serialized,
    .enabled(if: MosquittoBroker.testsEnabled, "needs mosquitto; \(MosquittoBroker.installHint)")
)
struct ReplayMQTTTLSTests {
    static let password = "tls-hunter2"

    /// A broker with a TLS listener for `localhost` and 127.0.0.1, and a password file for the bridge.
    struct Setup {
        let scratch: ScratchDirectory
        let authority: TestCertificateAuthority
        let broker: MosquittoBroker
        let passwordFile: String

        init() throws {
            scratch = try ScratchDirectory("mqtt-bridge-")
            authority = try TestCertificateAuthority()
            let server = try authority.issueServer(named: "broker", dnsNames: ["localhost"], ipAddresses: ["127.0.0.1"])
            broker = try MosquittoBroker(tls: .init(certificate: server.certificate, key: server.key))
            try broker.start()
            passwordFile = scratch.path("mqtt-password")
            try (ReplayMQTTTLSTests.password + "\n").write(toFile: passwordFile, atomically: true, encoding: .utf8)
        }
    }

    @Test func replayDeliversEverySampleOverTLSWithTheGivenCA() async throws {
        let setup = try Setup()
        let recording = BridgeProcess.recording("blood-pressure-kpa.jsonl")
        let expected = try await ExpectedSamples(recording: recording, scratch: setup.scratch)
        let states = try await MosquittoSubscriber(
            broker: setup.broker,
            topic: "carebridge/+/+",
            count: expected.samples.count
        )
        let replay = try await BridgeProcess.run(
            [
                "replay", "--store", setup.scratch.path("store.sqlite"), "--time-zone", "UTC",
                "--mqtt", "mqtts://bridge@localhost:\(setup.broker.tlsPort!)", "--mqtt-ca-file",
                setup.authority.certificate, "--mqtt-password-file", setup.passwordFile, recording,
            ],
            directory: setup.scratch.url
        )
        #expect(replay.status == 0, "\(replay.stderr)")
        #expect(replay.stderr.contains("MQTT: \(expected.samples.count) sample message(s) delivered"))
        let received = try await states.messages()
        let ids = try Set(received.map { try jsonObject($0.payload)["id"] as? String ?? "" })
        #expect(ids == Set(expected.samples.compactMap { $0["id"] as? String }))
        #expect(setup.broker.log.contains("on port \(setup.broker.tlsPort!)"))
        #expect(!replay.stderr.contains(Self.password))
    }

    @Test func aBrokerCertificateFromAnotherCAIsNeverTrustedAndTheSamplesStayQueued() async throws {
        let setup = try Setup()
        let stranger = try TestCertificateAuthority(name: "Someone Else's CA")
        let store = setup.scratch.path("store.sqlite")
        let url = "mqtts://bridge@127.0.0.1:\(setup.broker.tlsPort!)"
        let replay = try await BridgeProcess.run(
            [
                "replay", "--store", store, "--time-zone", "UTC", "--mqtt", url, "--mqtt-ca-file",
                stranger.certificate, "--mqtt-password-file", setup.passwordFile, "--mqtt-wait", "2",
                BridgeProcess.recording("blood-pressure-kpa.jsonl"),
            ],
            directory: setup.scratch.url
        )
        // EX_TEMPFAIL: stored, still queued; the message says why, naming the broker but not the password.
        #expect(replay.status == 75, "\(replay.stderr)")
        #expect(
            replay.stderr.contains("the broker at \(url) was not reachable: TLS to 127.0.0.1:\(setup.broker.tlsPort!)")
        )
        #expect(replay.stderr.contains("certificate is not trusted: not signed by the CA in \(stranger.certificate)"))
        #expect(!replay.stderr.contains(Self.password))
        #expect(!setup.broker.log.contains("Received PUBLISH"))

        // With the right CA the next run delivers what was queued.
        let states = try await MosquittoSubscriber(broker: setup.broker, topic: "carebridge/+/+", count: 4)
        let again = try await BridgeProcess.run(
            [
                "replay", "--store", store, "--time-zone", "UTC", "--mqtt", url, "--mqtt-ca-file",
                setup.authority.certificate, "--mqtt-password-file", setup.passwordFile,
                BridgeProcess.recording("blood-pressure-kpa.jsonl"),
            ],
            directory: setup.scratch.url
        )
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try await states.messages().count == 4)
    }

    @Test func tlsOptionsAreCheckedBeforeTheReplay() async throws {
        let scratch = try ScratchDirectory("mqtt-bridge-")
        let recording = BridgeProcess.recording("blood-pressure-kpa.jsonl")
        let missing = try await BridgeProcess.run(
            [
                "replay", "--store", scratch.path("a.sqlite"), "--mqtt", "mqtts://bridge:secret@localhost:1",
                "--mqtt-ca-file", scratch.path("absent.pem"), recording,
            ],
            directory: scratch.url
        )
        #expect(missing.status == 66, "\(missing.stderr)")
        #expect(missing.stderr.contains("cannot read CA file \(scratch.path("absent.pem"))"))
        #expect(missing.stderr.contains("mqtts://bridge:***@localhost:1"))
        #expect(!missing.stderr.contains("secret"))

        let plain = try await BridgeProcess.run(
            [
                "replay", "--store", scratch.path("b.sqlite"), "--mqtt", "mqtt://localhost:1", "--mqtt-ca-file",
                scratch.path("ca.pem"), recording,
            ],
            directory: scratch.url
        )
        #expect(plain.status == 64, "\(plain.stderr)")
        #expect(plain.stderr.contains("--mqtt-ca-file needs a TLS broker URL: --mqtt mqtts://HOST[:PORT]"))
    }
}
