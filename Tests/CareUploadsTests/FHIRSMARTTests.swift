import CareUploads
import Foundation
import Synchronization
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// SMART Backend Services against the local FHIR server's token endpoint (Fixtures/fhir_server.py verifies the client
/// assertion: signature with the registered public key, aud, exp at most 5 minutes ahead, a jti never seen before):
/// `carebridge fhir push --smart-client-id` with a P-384 and an RSA key registered as the JWK set `carebridge fhir
/// smart-jwks` printed (the server picks the key by the assertion's `kid`), a key the server does not know, an access
/// token that expires during the push; the token kept until its expiry, then fetched again; and `smart-jwks`'s
/// errors.
@Suite(.serialized) struct FHIRSMARTTests {
    static let clientID = "carebridge-test-client"

    let scratch: ScratchDirectory

    init() throws {
        scratch = try ScratchDirectory("carebridge-smart-")
    }

    /// A new key pair from openssl: the private key's PEM file (mode 600) and the public key's.
    func keyPair(_ name: String, algorithm: [String]) async throws -> (privateKey: String, publicKey: String) {
        let privateKey = scratch.path("\(name).pem")
        let publicKey = scratch.path("\(name).pub.pem")
        let openssl = URL(fileURLWithPath: "/usr/bin/openssl")
        let made = try await ChildProcess.run(openssl, ["genpkey"] + algorithm + ["-out", privateKey])
        #expect(made.status == 0, "\(made.standardError)")
        chmod(privateKey, 0o600)
        let extracted = try await ChildProcess.run(openssl, ["pkey", "-in", privateKey, "-pubout", "-out", publicKey])
        #expect(extracted.status == 0, "\(extracted.standardError)")
        return (privateKey, publicKey)
    }

    static let p384 = ["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-384"]
    static let rsa = ["-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"]

    /// `carebridge fhir smart-jwks` for `privateKey` (`arguments`, else `--smart-key-file privateKey`): the JWK set
    /// it printed, in a file to register with the server, and its one key.
    func printedJWKS(
        of privateKey: String,
        arguments: [String]? = nil,
        environment: [String: String] = [:]
    ) async throws -> (file: String, key: [String: Any]) {
        let printed = try await CarebridgeRun.run(
            ["fhir", "smart-jwks"] + (arguments ?? ["--smart-key-file", privateKey]),
            environment: environment
        )
        #expect(printed.status == 0, "\(printed)")
        let set = try JSONSerialization.jsonObject(with: Data(printed.stdout.utf8)) as? [String: Any]
        let keys = try #require(set?["keys"] as? [[String: Any]])
        #expect(keys.count == 1)
        let file = privateKey + ".jwks.json"
        try Data(printed.stdout.utf8).write(to: URL(fileURLWithPath: file))
        // Never the private key: not its PEM, not one of its JWK parameters.
        let pem = try String(contentsOfFile: privateKey, encoding: .utf8)
        let body = pem.split(separator: "\n").dropFirst().first.map(String.init) ?? pem
        #expect(!printed.stdout.contains(body) && !printed.stderr.contains(body))
        #expect(Set(keys[0].keys).isDisjoint(with: ["d", "p", "q", "dp", "dq", "qi", "oth", "k"]), "\(keys[0].keys)")
        return (file, keys[0])
    }

    /// The local FHIR server with this suite's client registered under `publicKey` (a PEM public key or a JWK set),
    /// started.
    func smartServer(registering publicKey: String, tokenLifetime: Int = 300) async throws -> FHIRTestServer {
        let server = try FHIRTestServer(
            directory: scratch.url("server"),
            tokenFile: nil,
            smart: .init(id: Self.clientID, publicKeyFile: publicKey),
            tokenLifetime: tokenLifetime
        )
        try await server.start()
        return server
    }

    func makeStore() async throws -> String {
        let store = scratch.path("store.sqlite")
        let replayed = try await CarebridgeRun.run([
            "replay", "--store", store, "--time-zone", "Europe/Berlin",
            PackageRoot.recording("blood-pressure-kpa.jsonl"),
            PackageRoot.recording("weight-scale-stored-burst.jsonl"),
        ])
        #expect(replayed.status == 0, "\(replayed)")
        return store
    }

    func push(_ store: String, to server: FHIRTestServer, keyFile: String) async throws -> CarebridgeRun {
        try await CarebridgeRun.run([
            "fhir", "push", "--server", server.url, "--smart-client-id", Self.clientID, "--smart-key-file", keyFile,
            "--subject", "Patient/p1", "--timeout", "120", "--store", store, "--json",
        ])
    }

    @Test(
        .enabled(if: TestReceiver.testsEnabled, "no /usr/bin/python3"),
        arguments: [("ES384", p384), ("RS384", rsa)]
    )
    func aPushSignedWithTheKeyWhoseJWKSetSmartJWKSPrintedArrivesWithOneAccessToken(
        algorithm: String,
        keyOptions: [String]
    ) async throws {
        let keys = try await keyPair("client", algorithm: keyOptions)
        let jwks = try await printedJWKS(of: keys.privateKey)
        #expect(jwks.key["alg"] as? String == algorithm)
        #expect(jwks.key["kty"] as? String == (algorithm == "ES384" ? "EC" : "RSA"))
        #expect(jwks.key["key_ops"] as? [String] == ["verify"])
        let publicMembers: Set<String> = algorithm == "ES384" ? ["crv", "x", "y"] : ["n", "e"]
        #expect(publicMembers.isSubset(of: Set(jwks.key.keys)))
        // The kid the signer puts in every assertion's header is the printed one.
        let signer = try await SMARTBackendAuthorization(
            clientID: Self.clientID,
            keyFile: keys.privateKey,
            serverURL: "http://127.0.0.1:1/fhir"
        )
        #expect(signer.keyID == jwks.key["kid"] as? String && signer.algorithm == algorithm)
        let server = try await smartServer(registering: jwks.file)
        let store = try await makeStore()

        let pushed = try await push(store, to: server, keyFile: keys.privateKey)
        #expect(pushed.status == 0, "\(algorithm): \(pushed)")
        #expect(try pushed.summary()["pending"] as? Int == 0)
        #expect(try server.resources().contains { $0.type == "Observation" })
        // The token endpoint was found through .well-known/smart-configuration and asked once: the token is kept
        // for every Bundle of the push.
        #expect(try server.tokenStatuses() == [200])
        #expect(try server.requestStatuses().allSatisfy { $0 == 200 })
        let key = try String(contentsOfFile: keys.privateKey, encoding: .utf8)
        let body = key.split(separator: "\n").dropFirst().first.map(String.init) ?? key
        #expect(!pushed.stdout.contains(body) && !pushed.stderr.contains(body))
    }

    @Test(.enabled(if: TestReceiver.testsEnabled, "no /usr/bin/python3"))
    func aKeyTheServerDoesNotKnowIsRefusedAndNothingLeavesTheOutbox() async throws {
        let registered = try await keyPair("registered", algorithm: Self.p384)
        let other = try await keyPair("other", algorithm: Self.p384)
        let server = try await smartServer(registering: try await printedJWKS(of: registered.privateKey).file)
        let store = try await makeStore()

        let refused = try await push(store, to: server, keyFile: other.privateKey)
        #expect(refused.status == 77, "\(refused)")
        #expect(refused.stderr.contains("refused client \(Self.clientID)"), "\(refused.stderr)")
        #expect(!refused.stderr.contains("PRIVATE KEY") && !refused.stdout.contains("PRIVATE KEY"))
        #expect(try server.resources().isEmpty)
        #expect(try server.tokenStatuses() == [401])

        let accepted = try await push(store, to: server, keyFile: registered.privateKey)
        #expect(accepted.status == 0, "\(accepted)")
        #expect(!(try server.resources()).isEmpty)
    }

    @Test(.enabled(if: TestReceiver.testsEnabled, "no /usr/bin/python3"))
    func anAccessTokenThatExpiresDuringThePushIsFetchedAgain() async throws {
        let keys = try await keyPair("client", algorithm: Self.p384)
        let server = try await smartServer(registering: keys.publicKey)
        let store = try await makeStore()
        // The server expires every token it issued when the first Bundle arrives.
        try server.script(["expire"])

        let pushed = try await push(store, to: server, keyFile: keys.privateKey)
        #expect(pushed.status == 0, "\(pushed)")
        #expect(try server.tokenStatuses() == [200, 200])
        let statuses = try server.requestStatuses()
        #expect(statuses.first == 401 && statuses.dropFirst().allSatisfy { $0 == 200 }, "\(statuses)")
        #expect(try pushed.summary()["pending"] as? Int == 0)
    }

    @Test(.enabled(if: TestReceiver.testsEnabled, "no /usr/bin/python3"))
    func theAccessTokenIsKeptUntilShortlyBeforeItExpiresThenRenewed() async throws {
        let keys = try await keyPair("client", algorithm: Self.p384)
        let server = try await smartServer(registering: keys.publicKey, tokenLifetime: 60)
        // The bridge's wall clock, 20 s behind the server's and moved by the test: the assertions' exp stays
        // within the server's 5 minutes whatever the test does.
        let now = Mutex(Date().addingTimeInterval(-20))
        let smart = try await SMARTBackendAuthorization(
            clientID: Self.clientID,
            keyFile: keys.privateKey,
            serverURL: server.url,
            now: { now.withLock { $0 } }
        )
        #expect(smart.algorithm == "ES384")

        let first = try await smart.accessToken()
        now.withLock { $0 += 29 }
        #expect(try await smart.accessToken() == first, "kept while more than 30 s of its 60 s are left")
        #expect(await smart.fetched == 1)
        now.withLock { $0 += 2 }
        let renewed = try await smart.accessToken()
        #expect(renewed != first)
        #expect(await smart.fetched == 2)
        #expect(try server.tokenStatuses() == [200, 200])
    }

    @Test func smartJWKSReadsTheCredentialPushReadsAndNamesTheFileAndWhatIsWrongWithIt() async throws {
        let keys = try await keyPair("client", algorithm: Self.p384)
        // Without --smart-key-file: the systemd credential fhir-smart-key, as `fhir push` reads it.
        let credentials = scratch.path("credentials")
        try FileManager.default.createDirectory(atPath: credentials, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: keys.privateKey, toPath: credentials + "/fhir-smart-key")
        let fromFile = try await printedJWKS(of: keys.privateKey)
        let fromCredential = try await printedJWKS(
            of: keys.privateKey,
            arguments: [],
            environment: ["CREDENTIALS_DIRECTORY": credentials]
        )
        #expect(fromCredential.key["kid"] as? String == fromFile.key["kid"] as? String)

        let missing = try await CarebridgeRun.run(["fhir", "smart-jwks"])
        #expect(missing.status == 64 && missing.stdout.isEmpty, "\(missing)")
        #expect(missing.stderr.contains("--smart-key-file is needed (or the systemd credential fhir-smart-key)"))
        let absent = scratch.path("absent.pem")
        let notThere = try await CarebridgeRun.run(["fhir", "smart-jwks", "--smart-key-file", absent])
        #expect(notThere.status == 64 && notThere.stdout.isEmpty, "\(notThere)")
        #expect(notThere.stderr.contains("cannot read a private key from \(absent): there is no such file"))
        // A public key, and a P-256 key: neither can sign ES384 or RS384.
        let p256 = try await keyPair("p256", algorithm: ["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"])
        for file in [keys.publicKey, p256.privateKey] {
            let refused = try await CarebridgeRun.run(["fhir", "smart-jwks", "--smart-key-file", file])
            #expect(refused.status == 64 && refused.stdout.isEmpty, "\(refused)")
            #expect(refused.stderr.contains("\(file) holds no P-384 or RSA (2048 bits or more) private key"))
            #expect(!refused.stderr.contains("PRIVATE KEY"))
        }
    }
}
