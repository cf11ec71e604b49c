import CareHub
import Foundation
import Logging
import TestSupport
import Testing

extension HubSyncCommandTests {
    /// Client certificates over real TLS on a real socket: the bridge makes its key and request, the hub's client
    /// CA (`hub client-ca`) signs it at enrolment, and `hub serve --client-ca` checks it. A bridge with its valid
    /// certificate syncs; a certificate from another CA, an expired one and one replaced by a later enrolment are
    /// refused at once (exit 77, saying why) and the bridge keeps its readings; a bridge's certificate for a
    /// patient it is not enrolled for gets 403; a bridge with a token still syncs beside them. Nothing refused is
    /// stored.
    @Test(.enabled(if: PostgresServer.testsEnabled, "PostgreSQL is not installed (apt-get install -y postgresql)"))
    func bridgesWithClientCertificatesSyncAndForeignExpiredOrReplacedCertificatesAreRefused() async throws {
        let (postgres, passwordFile, database) = try await startPostgres()
        let serverAuthority = try TestCertificateAuthority()
        let server = try serverAuthority.issueServer(named: "hub", ipAddresses: ["127.0.0.1"])
        func file(_ name: String) -> String { directory.appendingPathComponent(name).path }

        let clientCA = try await carebridge([
            "hub", "client-ca", "--certificate", file("clients-ca.pem"), "--key", file("clients-ca.key"),
        ])
        #expect(clientCA.status == 0, "\(clientCA)")
        #expect(try mode(file("clients-ca.key")) == 0o600, "the CA key is the owner's only")

        // Stores: home-1 (ann) and home-3 (cat) write for their patients, home-2 (enrolled for ben) for ann,
        // rogue (ann) shows a certificate of another CA, home-4 (dan) has a token.
        let patients = ["home-1": "ann", "home-2": "ann", "home-3": "cat", "home-4": "dan", "rogue": "ann"]
        for (bridge, patient) in patients.sorted(by: { $0.key < $1.key }) {
            let added = try await carebridge([
                "patients", "add", patient, "--name", patient.capitalized, "--store", file("\(bridge).sqlite"),
            ])
            #expect(added.status == 0, "\(added)")
            try await ingest(file("\(bridge).sqlite"), count: 3, from: 0)
        }

        /// The bridge's key and request (made on the bridge), then its certificate from `hub enrol --csr`.
        func enrolWithCertificate(_ bridge: String, patient: String, as name: String) async throws {
            let request = try await carebridge([
                "sync", "certificate-request", "--bridge", bridge, "--key", file("\(name).key"), "--csr",
                file("\(name).csr"),
            ])
            #expect(request.status == 0, "\(request)")
            #expect(try mode(file("\(name).key")) == 0o600, "the bridge's key is the owner's only")
            let enrolled = try await carebridge(
                ["hub", "enrol"] + database + [
                    "--bridge", bridge, "--patient", patient, "--csr", file("\(name).csr"), "--client-ca-cert",
                    file("clients-ca.pem"), "--client-ca-key", file("clients-ca.key"),
                ]
            )
            #expect(enrolled.status == 0, "\(enrolled)")
            #expect(enrolled.stdout.hasPrefix("-----BEGIN CERTIFICATE-----"), "\(enrolled)")
            #expect(!enrolled.stdout.contains("PRIVATE KEY"), "the key never leaves the bridge")
            try Data(enrolled.stdout.utf8).write(to: URL(fileURLWithPath: file("\(name).pem")))
        }
        try await enrolWithCertificate("home-1", patient: "ann", as: "home-1")
        try await enrolWithCertificate("home-2", patient: "ben", as: "home-2")

        // home-3's certificate is signed by the hub's CA and enrolled, but it expired yesterday.
        let expiredRequest = try HubCertificateRequest(bridge: "home-3")
        try expiredRequest.write(key: file("home-3.key"), request: file("home-3.csr"))
        let expired = try HubCertificateAuthority(
            certificateFile: file("clients-ca.pem"),
            keyFile: file("clients-ca.key")
        ).issue(
            requestPEM: expiredRequest.requestPEM,
            bridge: "home-3",
            validFrom: Date().addingTimeInterval(-3 * 86_400),
            validUntil: Date().addingTimeInterval(-86_400)
        )
        try Data(expired.pem.utf8).write(to: URL(fileURLWithPath: file("home-3.pem")))
        try await HubDatabase(url: postgres.url, passwordFile: passwordFile).withClient(logger: Logger(label: "test")) {
            client in
            let store = HubStore(client: client, logger: Logger(label: "test"))
            _ = try await store.enrol(bridge: "home-3", patients: ["cat"], certificate: expired)
        }

        // rogue: a client certificate naming home-1, from a CA the hub does not trust.
        let otherAuthority = try TestCertificateAuthority(name: "Another CA")
        let rogue = try otherAuthority.issueClient(named: "rogue", commonName: "home-1")

        let token = try await carebridge(["hub", "enrol"] + database + ["--bridge", "home-4", "--patient", "dan"])
        #expect(token.status == 0, "\(token)")
        try Data(token.stdout.utf8).write(to: URL(fileURLWithPath: file("home-4.token")))

        let hub = try await ListeningProcess.start(
            ["hub", "serve"] + database + [
                "--listen", "127.0.0.1:0", "--tls-cert", server.certificate, "--tls-key", server.key,
                "--client-ca", file("clients-ca.pem"),
            ],
            prefix: "hub listening on ",
            directory: directory
        )
        func push(_ store: String, _ credential: [String], timeout: Int = 60) async throws -> CarebridgeRun {
            try await carebridge(
                ["sync", "push", "--hub", hub.url, "--ca-file", serverAuthority.certificate] + credential + [
                    "--timeout", "\(timeout)", "--store", file("\(store).sqlite"), "--json",
                ]
            )
        }
        func certificate(_ name: String, key: String? = nil) -> [String] {
            ["--client-cert", file("\(name).pem"), "--client-key", key ?? file("\(name).key")]
        }

        let synced = try await push("home-1", certificate("home-1"))
        #expect(synced.status == 0 && synced.stdout.contains(#""sent": 3"#), "\(synced)")
        let tokenSynced = try await push("home-4", ["--token-file", file("home-4.token")])
        #expect(tokenSynced.status == 0 && tokenSynced.stdout.contains(#""sent": 3"#), "a token beside: \(tokenSynced)")

        // Refusals that retrying cannot fix stop at once (77), say why, and keep the readings queued.
        let foreign = try await push(
            "rogue",
            ["--client-cert", rogue.certificate, "--client-key", rogue.key],
            timeout: 600
        )
        #expect(foreign.status == 77, "\(foreign)")
        #expect(foreign.stderr.contains("refused the client certificate"), "\(foreign.stderr)")
        #expect(foreign.stderr.contains("stay queued"), "\(foreign.stderr)")

        let stale = try await push("home-3", certificate("home-3"), timeout: 600)
        #expect(stale.status == 77, "\(stale)")
        #expect(stale.stderr.contains("refused the client certificate: it has expired"), "\(stale.stderr)")

        // Plain HTTP to the TLS port: no answer but a closed connection; the push gives up at its timeout.
        let plain = try await carebridge([
            "sync", "push", "--hub", hub.url.replacingOccurrences(of: "https://", with: "http://"), "--token-file",
            file("home-4.token"), "--timeout", "1", "--store", file("home-4.sqlite"), "--json",
        ])
        #expect(plain.status == 75, "\(plain)")

        // home-1 enrols a new key and certificate: the old certificate stops at once, the new one syncs.
        try await ingest(file("home-1.sqlite"), count: 2, from: 3)
        try FileManager.default.moveItem(atPath: file("home-1.pem"), toPath: file("home-1-old.pem"))
        try FileManager.default.moveItem(atPath: file("home-1.key"), toPath: file("home-1-old.key"))
        try await enrolWithCertificate("home-1", patient: "ann", as: "home-1")
        let replaced = try await push("home-1", certificate("home-1-old"), timeout: 600)
        #expect(replaced.status == 77, "\(replaced)")
        #expect(replaced.stderr.contains("HTTP 401"), "\(replaced.stderr)")
        #expect(replaced.stderr.contains("replaced by a later enrolment"), "\(replaced.stderr)")
        let renewed = try await push("home-1", certificate("home-1"))
        #expect(renewed.status == 0 && renewed.stdout.contains(#""sent": 2"#), "\(renewed)")

        // home-2's own, valid certificate, writing for ann while enrolled for ben: 403, nothing stored.
        let trespass = try await push("home-2", certificate("home-2"), timeout: 2)
        #expect(trespass.status == 75, "\(trespass)")
        #expect(trespass.stderr.contains("HTTP 403"), "\(trespass.stderr)")
        #expect(trespass.stderr.contains("not enrolled for patient ann"), "\(trespass.stderr)")

        let status = try await carebridge(["hub", "status", "--json"] + database)
        let list = try #require(try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [[String: Any]])
        #expect(list.map { $0["bridge"] as? String } == ["home-1", "home-2", "home-3", "home-4"], "\(status)")
        #expect(list.map { $0["samples"] as? Int } == [5, 0, 0, 3], "\(status.stdout)")
        let held = try await heldSamples(postgres: postgres, passwordFile: passwordFile)
        #expect(held.filter { $0.bridge == "home-1" }.count == 5, "each of home-1's readings once")

        let stopped = try await hub.stop()
        #expect(stopped.exited && stopped.status == 0, "\(hub.stderr)")
        await postgres.stop()
        let logs = hub.stdout + hub.stderr
        #expect(logs.contains("belongs to no enrolled bridge"), "the replaced certificate was refused: \(logs)")
        // The first refused handshake from the bridges' address is logged at once, at warning level, with the peer
        // and the reason in words; the ones after it within 60 s are summed up in one line (when the window ends, or
        // when the hub stops). TLSHandshakeLogTests counts them exactly on a clock it moves.
        let lines = logs.split(separator: "\n")
        let refusals = lines.filter { $0.contains("TLS handshake refused") }
        #expect(
            refusals.first?.contains("the client certificate of 'home-1' is not signed by the client CA") == true,
            "the foreign certificate first: \(refusals)"
        )
        #expect(refusals.allSatisfy { $0.contains("warning") && $0.contains("peer=127.0.0.1:") }, "\(refusals)")
        let summaries = lines.filter { $0.contains("more refused TLS handshake") }
        #expect(summaries.allSatisfy { $0.contains("from 127.0.0.1 in the last 60 s") }, "\(summaries)")
        let later = (refusals.dropFirst() + summaries).joined(separator: "\n")
        #expect(later.contains("the client certificate of 'home-3' has expired: valid until "), "\(later)")
        #expect(later.contains("plain HTTP to the TLS port"), "\(later)")
        #expect(!logs.contains("BEGIN"), "no certificate's contents")
        for name in ["home-1", "home-1-old", "home-2"] {
            let key = try String(contentsOfFile: file("\(name).key"), encoding: .utf8)
            let body = key.split(separator: "\n").dropFirst().first.map(String.init) ?? key
            #expect(!logs.contains(body), "no part of \(name)'s key is in the hub's logs")
        }
    }

    /// A file's permission bits.
    func mode(_ path: String) throws -> Int {
        try #require(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
    }
}
