import Foundation
import NIOCore
import TestSupport
import Testing

@testable import MQTTClient

/// A real mosquitto with a TLS listener whose certificate a CA made at test time signed.
struct TLSBroker {
    let authority: TestCertificateAuthority
    let broker: MosquittoBroker

    /// - Parameters:
    ///   - dnsNames, ipAddresses: what the broker's certificate names.
    ///   - requireClientCertificate: whether the broker wants a client certificate from `authority`.
    init(
        dnsNames: [String] = ["localhost"],
        ipAddresses: [String] = ["127.0.0.1"],
        requireClientCertificate: Bool = false
    ) throws {
        authority = try TestCertificateAuthority()
        let server = try authority.issueServer(named: "broker", dnsNames: dnsNames, ipAddresses: ipAddresses)
        broker = try MosquittoBroker(
            tls: .init(
                certificate: server.certificate,
                key: server.key,
                clientCA: authority.certificate,
                requireClientCertificate: requireClientCertificate
            )
        )
        try broker.start()
    }

    /// A session to the TLS listener at `host` (127.0.0.1 or localhost) trusting `caFile` (the broker's CA by
    /// default), with a password that must never appear in a message.
    func session(
        host: String = "127.0.0.1",
        caFile: String? = nil,
        configure: (inout MQTTSession.Configuration.TLS) -> Void = { _ in }
    ) -> MQTTSession {
        var tls = MQTTSession.Configuration.TLS(caFile: caFile ?? authority.certificate)
        configure(&tls)
        let configuration = MQTTSession.Configuration(
            host: host,
            port: broker.tlsPort!,
            clientID: "cb-tls-\(UUID().uuidString.prefix(8))",
            username: "bridge",
            password: ByteBuffer(string: TLSBroker.password),
            tls: tls,
            connectTimeout: .seconds(5)
        )
        return MQTTSession(configuration: configuration, logger: testLogger("tls"))
    }

    static let password = "hunter2-tls"
}

/// The failure of a first connect, which must be a TLS error naming the broker and never the password.
func tlsConnectFailure(_ session: MQTTSession) async -> MQTTClientError? {
    defer { Task { await session.disconnect() } }
    do {
        try await session.connect()
        return nil
    } catch {
        return error
    }
}

@Suite(
    "MQTTSession over TLS against a real mosquitto with a test CA",
    .enabled(if: MosquittoBroker.testsEnabled),
    .timeLimit(.minutes(5))
)
struct MQTTSessionTLSTests {
    @Test func publishesOverTLSWhenTheBrokersCertificateChainsToTheGivenCA() async throws {
        let tls = try TLSBroker()
        let live = try await MosquittoSubscriber(broker: tls.broker, topic: "carebridge/#", count: 1)
        let session = tls.session()
        try await session.connect()
        try await session.publish(topic: "carebridge/tls", payload: ByteBuffer(string: "72"), qos: .atLeastOnce)
        await session.disconnect()
        #expect(try await live.messages() == [.init(topic: "carebridge/tls", retained: false, qos: 1, payload: "72")])
        // The broker saw this client on its TLS listener (the plain one carries only the subscriber).
        #expect(tls.broker.log.contains("on port \(tls.broker.tlsPort!)"), "\(tls.broker.log)")
    }

    @Test func connectsByDNSNameWhenTheCertificateListsIt() async throws {
        let tls = try TLSBroker(dnsNames: ["localhost"], ipAddresses: [])
        let session = tls.session(host: "localhost")
        try await session.connect()
        #expect(await session.isConnected)
        await session.disconnect()
    }

    @Test func aCertificateFromAnotherCAIsRefusedAsUntrusted() async throws {
        let tls = try TLSBroker()
        let stranger = try TestCertificateAuthority(name: "Someone Else's CA")
        let error = try #require(await tlsConnectFailure(tls.session(caFile: stranger.certificate)))
        #expect(error.code == .tlsFailed(.untrustedCertificate))
        #expect(error.message.contains("127.0.0.1:\(tls.broker.tlsPort!)"))
        #expect(error.message.contains(stranger.certificate))
        #expect(!"\(error)".contains(TLSBroker.password))
    }

    @Test func withoutACAFileTheSystemTrustStoreDoesNotTrustATestCA() async throws {
        let tls = try TLSBroker()
        let session = tls.session { $0.caFile = nil }
        let error = try #require(await tlsConnectFailure(session))
        #expect(error.code == .tlsFailed(.untrustedCertificate))
        #expect(error.message.contains("system's trust store"))
    }

    @Test func aCertificateForAnotherHostIsRefusedUnlessHostnameVerificationIsOff() async throws {
        let tls = try TLSBroker(dnsNames: ["broker.example.org"], ipAddresses: ["10.9.9.9"])
        for host in ["127.0.0.1", "localhost"] {
            let error = try #require(await tlsConnectFailure(tls.session(host: host)), "\(host)")
            #expect(error.code == .tlsFailed(.hostnameMismatch), "\(host): \(error)")
            #expect(error.message.contains("\(host):\(tls.broker.tlsPort!)"))
            #expect(!"\(error)".contains(TLSBroker.password))
        }
        // Off: the CA is still checked, the name is not.
        let lenient = tls.session { $0.verifiesHostname = false }
        try await lenient.connect()
        #expect(await lenient.isConnected)
        await lenient.disconnect()
    }

    @Test func tlsToAPlainMQTTPortFailsTheHandshake() async throws {
        let tls = try TLSBroker()
        let configuration = MQTTSession.Configuration(
            host: "127.0.0.1",
            port: tls.broker.port,
            clientID: "cb-tls-plain",
            tls: .init(caFile: tls.authority.certificate),
            connectTimeout: .seconds(5)
        )
        let error = try #require(
            await tlsConnectFailure(MQTTSession(configuration: configuration, logger: testLogger("tls")))
        )
        #expect(error.code == .tlsFailed(.handshakeFailed), "\(error)")
        #expect(error.message.contains("127.0.0.1:\(tls.broker.port)"))
    }

    @Test func aBrokerThatRequiresAClientCertificateAcceptsOneFromItsCA() async throws {
        let tls = try TLSBroker(requireClientCertificate: true)
        let without = try #require(await tlsConnectFailure(tls.session()))
        guard case .tlsFailed = without.code else {
            Issue.record("expected a TLS failure, got \(without)")
            return
        }
        let client = try tls.authority.issueClient(named: "bridge", commonName: "carebridge")
        let session = tls.session {
            $0.certificateFile = client.certificate
            $0.keyFile = client.key
        }
        try await session.connect()
        try await session.publish(topic: "carebridge/client-cert", payload: ByteBuffer(string: "1"), qos: .atLeastOnce)
        await session.disconnect()
    }
}

@Suite struct MQTTSessionTLSConfigurationTests {
    @Test func mqttsURLsTurnOnTLSWithHostnameVerificationAndPort8883() throws {
        let secure = try MQTTSession.Configuration(url: "mqtts://bridge@broker.local", clientID: "c")
        #expect(secure.port == 8883)
        #expect(secure.tls == MQTTSession.Configuration.TLS())
        #expect(secure.tls?.verifiesHostname == true)
        #expect(secure.tls?.caFile == nil)
        #expect(try MQTTSession.Configuration(url: "MQTTS://[::1]:9883", clientID: "c").port == 9883)
        #expect(try MQTTSession.Configuration(url: "mqtt://broker.local", clientID: "c").tls == nil)
    }

    @Test func unreadableOrInvalidFilesAreNamedBeforeAnythingConnects() throws {
        let authority = try TestCertificateAuthority()
        let notPEM = authority.directory.appendingPathComponent("not.pem").path
        try "not a certificate\n".write(toFile: notPEM, atomically: true, encoding: .utf8)
        let client = try authority.issueClient(named: "bridge", commonName: "carebridge")
        let cases: [(MQTTSession.Configuration.TLS, String)] = [
            (.init(caFile: "/nonexistent/ca.pem"), "cannot read CA file /nonexistent/ca.pem"),
            (.init(caFile: notPEM), "CA file \(notPEM) holds no PEM certificate"),
            (.init(certificateFile: notPEM, keyFile: client.key), "client certificate \(notPEM) holds no PEM"),
            (.init(certificateFile: client.certificate, keyFile: notPEM), "client key \(notPEM) holds no PEM"),
            (.init(certificateFile: client.certificate), "a client certificate needs its key"),
            (.init(keyFile: client.key), "a client key needs its client certificate"),
        ]
        for (tls, message) in cases {
            let error = #expect(throws: MQTTClientError.self) { try tls.validate() }
            #expect(error?.code == .tlsFailed(.invalidConfiguration))
            #expect(error?.message.contains(message) == true, "\(String(describing: error))")
        }
        try MQTTSession.Configuration.TLS(
            caFile: authority.certificate,
            certificateFile: client.certificate,
            keyFile: client.key
        ).validate()
    }
}
