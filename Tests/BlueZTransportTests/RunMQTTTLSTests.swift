import Foundation
import TestSupport
import Testing

/// `carebridge run --mqtt mqtts://…` against the fake bluetoothd and a real mosquitto with a TLS listener whose
/// certificate a CA made at test time signed.
extension FakeBlueZSuites {
    @Suite(.enabled(if: MosquittoBroker.testsEnabled, "needs mosquitto; \(MosquittoBroker.installHint)"))
    struct RunMQTTTLSTests {
        @Test func runPublishesLiveSamplesOverTLS() async throws {
            let recording = "thermometer-fahrenheit.jsonl"
            let expected = try BridgeEndToEndTests.keys(fromGolden: recording)
            try #require(!expected.isEmpty)
            let authority = try TestCertificateAuthority()
            let server = try authority.issueServer(named: "broker", dnsNames: ["localhost"])
            let broker = try MosquittoBroker(tls: .init(certificate: server.certificate, key: server.key))
            try broker.start()
            let fake = try await FakeBlueZ()
            defer { fake.stop() }
            try await fake.addAdapter()
            let store = BridgeEndToEndTests.temporaryStore()
            defer { try? FileManager.default.removeItem(atPath: store) }
            let states = try await MosquittoSubscriber(broker: broker, topic: "carebridge/+/+", count: expected.count)

            let bridge = try await BridgeEndToEndTests.startBridge(
                fake,
                store: store,
                extra: [
                    "--mqtt", "mqtts://localhost:\(broker.tlsPort!)", "--mqtt-ca-file", authority.certificate,
                ]
            )
            try await fake.play(FakeBlueZ.recordings.appendingPathComponent(recording))
            let messages = try await states.messages()
            #expect(messages.count == expected.count)
            #expect(bridge.process.isRunning)
            try await BridgeEndToEndTests.settle(fake) { messages.count >= expected.count }
            #expect(await bridge.terminate() == 0, "carebridge run: \(bridge.stderr.suffix(3000))")
            #expect(broker.log.contains("on port \(broker.tlsPort!)"))
            let outbox = try await CarebridgeBinary.run(["outbox", "--store", store])
            #expect(outbox.stdout.contains("outbox empty"))
        }
    }
}
