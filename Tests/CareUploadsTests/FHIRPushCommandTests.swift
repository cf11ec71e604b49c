import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `carebridge fhir push` through the real binary against a local FHIR server (Fixtures/fhir_server.py: transaction
/// Bundles, conditional creates answered 200 when a match exists and 201 otherwise): the shipped recordings
/// replayed, then pushed, pushed again, and pushed again from a store that never heard the answers; an outage, a
/// 503 and a 429 with Retry-After in the middle; a refused token.
@Suite(.serialized) struct FHIRPushCommandTests {
    static let token = "fhir-bearer-token-7f3c"

    let scratch: ScratchDirectory
    var tokenFile: String { scratch.path("fhir.token") }

    init() throws {
        scratch = try ScratchDirectory("carebridge-fhir-")
        try scratch.writeSecret("fhir.token", "\(Self.token)\n")
    }

    typealias Run = CarebridgeRun

    func carebridge(_ arguments: [String]) async throws -> Run { try await CarebridgeRun.run(arguments) }

    /// A store with a blood-pressure session, a glucose meter's two downloads and a scale's stored burst.
    func makeStore(_ name: String) async throws -> String {
        let store = scratch.path(name)
        let replayed = try await carebridge([
            "replay", "--store", store, "--time-zone", "Europe/Berlin",
            PackageRoot.recording("blood-pressure-kpa.jsonl"),
            PackageRoot.recording("glucose-meter-download-twice.jsonl"),
            PackageRoot.recording("weight-scale-stored-burst.jsonl"),
        ])
        #expect(replayed.status == 0, "\(replayed)")
        return store
    }

    func push(_ store: String, to url: String, timeout: Int = 120, tokenFile: String? = nil) async throws -> Run {
        try await carebridge([
            "fhir", "push", "--server", url, "--token-file", tokenFile ?? self.tokenFile, "--subject",
            "Patient/p1", "--timeout", "\(timeout)", "--store", store, "--json",
        ])
    }

    func summary(_ run: Run) throws -> [String: Any] { try run.summary() }

    /// Each stored resource's first identifier (`system|value`): what makes it the same resource.
    func identities(_ server: FHIRTestServer) throws -> [String] {
        try server.resources().map { stored in
            let identifier = (stored.resource["identifier"] as? [[String: Any]])?.first
            return "\(stored.type) \(identifier?["system"] as? String ?? "")|\(identifier?["value"] as? String ?? "")"
        }
    }

    @Test(.enabled(if: TestReceiver.testsEnabled, "no /usr/bin/python3"))
    func eachResourceArrivesOnceHoweverOftenItIsPushed() async throws {
        let store = try await makeStore("store.sqlite")
        let lostAnswer = scratch.path("lost-answer.sqlite")
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: store + suffix) {
            try FileManager.default.copyItem(atPath: store + suffix, toPath: lostAnswer + suffix)
        }
        let server = try FHIRTestServer(directory: scratch.url("server"), tokenFile: tokenFile)
        try await server.start()

        let first = try await push(store, to: server.url)
        #expect(first.status == 0, "\(first)")
        #expect((try summary(first)["sent"] as? Int ?? 0) > 0, "\(first)")
        #expect(try summary(first)["pending"] as? Int == 0, "\(first)")
        let stored = try identities(server)
        #expect(Set(stored).count == stored.count, "no resource twice: \(stored)")
        let resources = try server.resources()
        #expect(resources.filter { $0.type == "Device" }.count == 4, "the gateway, the cuff, the meter, the scale")
        #expect(
            resources.contains { ($0.resource["code"] as? [String: Any]).map { "\($0)" }?.contains("85354-9") == true }
        )
        // References were resolved: every Observation points at a stored Device.
        let deviceIDs = Set(resources.filter { $0.type == "Device" }.map { "Device/" + $0.id })
        for observation in resources where observation.type == "Observation" {
            let device = (observation.resource["device"] as? [String: Any])?["reference"] as? String
            #expect(device.map(deviceIDs.contains) == true, "\(observation.resource)")
        }

        // Pushed again: nothing waits, nothing is sent.
        let again = try await push(store, to: server.url)
        #expect(again.status == 0, "\(again)")
        #expect(try summary(again)["sent"] as? Int == 0, "\(again)")
        // The meter downloaded again: the same readings, nothing new on the server.
        let replayed = try await carebridge([
            "replay", "--store", store, "--time-zone", "Europe/Berlin",
            PackageRoot.recording("glucose-meter-download-twice.jsonl"),
        ])
        #expect(replayed.status == 0, "\(replayed)")
        let afterReplay = try await push(store, to: server.url)
        #expect(afterReplay.status == 0, "\(afterReplay)")
        #expect(try identities(server) == stored)

        // A lost answer: the server stored everything, the bridge never heard (its store as before the first
        // push); sent again, the conditional creates match: nothing is created twice.
        let resent = try await push(lostAnswer, to: server.url)
        #expect(resent.status == 0, "\(resent)")
        #expect(try summary(resent)["sent"] as? Int == (try summary(first)["sent"] as? Int), "\(resent)")
        #expect(try identities(server) == stored)
        #expect(!first.stdout.contains(Self.token) && !first.stderr.contains(Self.token))
    }

    @Test(.enabled(if: TestReceiver.testsEnabled, "no /usr/bin/python3"))
    func anOutageA503AndA429WithRetryAfterLoseAndDuplicateNothing() async throws {
        let store = try await makeStore("store.sqlite")
        let reference = try await makeStore("reference.sqlite")
        // What a server that never fails ends up with.
        let clean = try FHIRTestServer(directory: scratch.url("clean"), tokenFile: tokenFile)
        try await clean.start()
        let cleanPush = try await push(reference, to: clean.url)
        #expect(cleanPush.status == 0, "\(cleanPush)")
        let expected = try identities(clean)

        // Nobody listens: refused connections until --timeout, everything stays queued.
        let server = try FHIRTestServer(directory: scratch.url("server"), tokenFile: tokenFile)
        let down = try await push(store, to: server.url, timeout: 2)
        #expect(down.status == 75, "\(down)")
        #expect(down.stderr.contains("still waiting for the FHIR server"), "\(down.stderr)")
        #expect(try summary(down)["sent"] as? Int == 0)

        // Up, but it goes down after storing the first Bundle, before answering; then busy, then rate limiting:
        // the same Bundle is sent again until the server takes it, and its conditional creates match what the lost
        // answer had stored.
        try server.script(["lost", "503", "429 1"])
        try await server.start()
        let pushed = try await push(store, to: server.url)
        #expect(pushed.status == 0, "\(pushed)")
        let statuses = try server.requestStatuses()
        #expect(Array(statuses.prefix(4)) == [0, 503, 429, 200], "\(statuses)")
        // The same resources as the server that never failed, each once, in the store's order.
        #expect(try identities(server) == expected)
    }

    @Test(.enabled(if: TestReceiver.testsEnabled, "no /usr/bin/python3"))
    func aRefusedTokenIsReportedAndNothingLeavesTheOutbox() async throws {
        let store = try await makeStore("store.sqlite")
        let server = try FHIRTestServer(directory: scratch.url("server"), tokenFile: tokenFile)
        try await server.start()
        let wrongFile = try scratch.writeSecret("wrong.token", "not-the-token-of-this-server\n")

        let refused = try await push(store, to: server.url, tokenFile: wrongFile)
        #expect(refused.status == 77, "\(refused)")
        #expect(refused.stderr.contains("HTTP 401") && refused.stderr.contains("refused the bearer token"))
        #expect(!refused.stderr.contains("not-the-token") && !refused.stdout.contains("not-the-token"))
        #expect(try server.resources().isEmpty)

        let accepted = try await push(store, to: server.url)
        #expect(accepted.status == 0, "\(accepted)")
        #expect(!(try server.resources()).isEmpty)
    }
}
