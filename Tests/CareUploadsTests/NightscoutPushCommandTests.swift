import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `carebridge nightscout push` through the real binary against a local Nightscout receiver (the v1 entries
/// contract, Fixtures/nightscout_receiver.py): the shipped glucose recordings replayed, then pushed; pushed again;
/// through an outage, a 503 and a 429 with Retry-After; with a wrong secret.
@Suite(.serialized) struct NightscoutPushCommandTests {
    static let secret = "correct-horse-battery-staple"

    let scratch: ScratchDirectory
    var directory: URL { scratch.url }
    var secretFile: String { scratch.path("nightscout.secret") }

    init() throws {
        scratch = try ScratchDirectory("carebridge-nightscout-")
        try scratch.writeSecret("nightscout.secret", "\(Self.secret)\n")
    }

    typealias Run = CarebridgeRun

    func carebridge(_ arguments: [String]) async throws -> Run { try await CarebridgeRun.run(arguments) }

    /// A store with the glucose meter's two downloads, a blood-pressure session (not glucose) and a typed reading
    /// in mmol/L. Returns the ids of its glucose readings.
    func makeStore(_ name: String) async throws -> (store: String, glucose: Set<String>) {
        let store = scratch.path(name)
        let replayed = try await carebridge([
            "replay", "--store", store, "--time-zone", "Europe/Berlin",
            PackageRoot.recording("glucose-meter-download-twice.jsonl"),
            PackageRoot.recording("blood-pressure-kpa.jsonl"),
        ])
        #expect(replayed.status == 0, "\(replayed)")
        let typed = try await carebridge([
            "ingest", "bloodGlucose", "5.3", "mmol/L", "--at", "2026-11-20T07:31", "--force", "--store", store,
        ])
        #expect(typed.status == 0, "\(typed)")
        let listed = try await carebridge(["samples", "--type", "bloodGlucose", "--json", "--store", store])
        #expect(listed.status == 0, "\(listed)")
        let samples = try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]] ?? []
        return (store, Set(samples.compactMap { $0["id"] as? String }))
    }

    func push(
        _ store: String,
        to url: String,
        timeout: Int = 120,
        secretFile: String? = nil
    ) async throws
        -> Run
    {
        try await carebridge([
            "nightscout", "push", "--url", url, "--secret-file", secretFile ?? self.secretFile,
            "--timeout", "\(timeout)", "--store", store, "--json",
        ])
    }

    func summary(_ run: Run) throws -> [String: Any] { try run.summary() }

    @Test(.enabled(if: TestReceiver.testsEnabled, "no /usr/bin/python3"))
    func eachGlucoseReadingArrivesOnceLoMarkedAndPushingAgainDuplicatesNothing() async throws {
        let (store, glucose) = try await makeStore("store.sqlite")
        #expect(glucose.count >= 6, "the downloads and the typed reading: \(glucose)")
        let lostAnswer = scratch.path("lost-answer.sqlite")
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: store + suffix) {
            try FileManager.default.copyItem(atPath: store + suffix, toPath: lostAnswer + suffix)
        }
        let receiver = try NightscoutReceiver(directory: scratch.url("site"), secretFile: secretFile)
        try await receiver.start()

        let first = try await push(store, to: receiver.url)
        #expect(first.status == 0, "\(first)")
        #expect(try summary(first)["sent"] as? Int == glucose.count, "\(first)")
        #expect(try summary(first)["pending"] as? Int == 0, "\(first)")
        #expect(try summary(first)["skipped"] as? Int == 0, "the blood pressure is not even queued: \(first)")
        let entries = try receiver.entries()
        #expect(entries.count == glucose.count)
        #expect(Set(entries.compactMap { $0["identifier"] as? String }) == glucose)
        #expect(entries.allSatisfy { $0["type"] as? String == "mbg" && $0["mbg"] is Int })
        let low = entries.filter { $0["comparator"] as? String == "<" }
        #expect(low.count == 1, "the recording's LO: \(entries)")
        #expect(low.first?["mbg"] as? Int == 39)
        #expect((low.first?["notes"] as? String)?.hasPrefix("LO") == true, "\(low)")
        #expect(
            entries.contains { $0["comparator"] as? String == ">" && ($0["notes"] as? String)?.hasPrefix("HI") == true }
        )
        #expect(entries.contains { ($0["notes"] as? String)?.contains("meal: ") == true }, "\(entries)")
        let typed = entries.filter { $0["device"] as? String == "CareBridge (typed)" }
        #expect(typed.count == 1 && typed.first?["mbg"] as? Int == 95, "5.3 mmol/L: \(typed)")

        // Pushed again: nothing waits, nothing is sent.
        let again = try await push(store, to: receiver.url)
        #expect(again.status == 0, "\(again)")
        #expect(try summary(again)["sent"] as? Int == 0, "\(again)")
        // The meter downloaded again: the same readings, nothing new queued.
        let replayed = try await carebridge([
            "replay", "--store", store, "--time-zone", "Europe/Berlin",
            PackageRoot.recording("glucose-meter-download-twice.jsonl"),
        ])
        #expect(replayed.status == 0, "\(replayed)")
        let afterReplay = try await push(store, to: receiver.url)
        #expect(afterReplay.status == 0, "\(afterReplay)")
        #expect(try summary(afterReplay)["sent"] as? Int == 0, "\(afterReplay)")

        // A lost answer: the site stored the batch, the bridge never heard (its store as before the first push);
        // sent again, stored once.
        let resent = try await push(lostAnswer, to: receiver.url)
        #expect(resent.status == 0, "\(resent)")
        #expect(try summary(resent)["sent"] as? Int == glucose.count, "\(resent)")
        #expect(try receiver.entries().count == glucose.count, "upserted by time and type, not added")
    }

    @Test(.enabled(if: TestReceiver.testsEnabled, "no /usr/bin/python3"))
    func anOutageA503AndA429WithRetryAfterLoseNothingAndKeepTheOrder() async throws {
        let (store, glucose) = try await makeStore("store.sqlite")
        let (reference, _) = try await makeStore("reference.sqlite")
        // The order a site that never fails receives them in.
        let clean = try NightscoutReceiver(directory: scratch.url("clean-site"), secretFile: secretFile)
        try await clean.start()
        let cleanPush = try await push(reference, to: clean.url)
        #expect(cleanPush.status == 0, "\(cleanPush)")
        let order = try clean.requests().flatMap(\.entries)

        // Nobody listens: refused connections until --timeout, everything stays queued.
        let site = try NightscoutReceiver(directory: scratch.url("site"), secretFile: secretFile)
        let down = try await push(store, to: site.url, timeout: 2)
        #expect(down.status == 75, "\(down)")
        #expect(try summary(down)["pending"] as? Int == glucose.count, "only glucose is queued: \(down)")
        #expect(down.stderr.contains("still waiting for Nightscout"), "\(down.stderr)")
        #expect(try summary(down)["sent"] as? Int == 0)

        // Up again, but busy, then rate limiting: the same batch is sent again until the site takes it.
        try site.script(["503", "429 1"])
        try await site.start()
        let pushed = try await push(store, to: site.url)
        #expect(pushed.status == 0, "\(pushed)")
        #expect(try summary(pushed)["sent"] as? Int == glucose.count, "\(pushed)")
        let requests = try site.requests()
        #expect(requests.map(\.status).prefix(3) == [503, 429, 200], "\(requests)")
        #expect(requests[0].entries == requests[1].entries && requests[1].entries == requests[2].entries)
        #expect(requests.filter { $0.status == 200 }.flatMap(\.entries) == order, "in the store's order")
        #expect(Set(try site.entries().compactMap { $0["identifier"] as? String }) == glucose)
    }

    @Test(.enabled(if: TestReceiver.testsEnabled, "no /usr/bin/python3"))
    func aWrongSecretIsReportedAsARefusalAndNothingLeavesTheOutbox() async throws {
        let (store, glucose) = try await makeStore("store.sqlite")
        let site = try NightscoutReceiver(directory: scratch.url("site"), secretFile: secretFile)
        try await site.start()
        let wrongFile = try scratch.writeSecret("wrong.secret", "not-the-secret-of-this-site\n")

        let refused = try await push(store, to: site.url, secretFile: wrongFile)
        #expect(refused.status == 77, "\(refused)")
        #expect(refused.stderr.contains("HTTP 401"), "\(refused.stderr)")
        #expect(refused.stderr.contains("refused the API secret"), "\(refused.stderr)")
        #expect(!refused.stderr.contains("not-the-secret") && !refused.stdout.contains("not-the-secret"))
        #expect(try summary(refused)["sent"] as? Int == 0)
        #expect(try site.entries().isEmpty)

        let accepted = try await push(store, to: site.url)
        #expect(accepted.status == 0, "\(accepted)")
        #expect(try summary(accepted)["sent"] as? Int == glucose.count, "\(accepted)")
    }

    @Test func plainHTTPToAnotherMachineIsRefusedAndASharedSecretFileWarned() async throws {
        let store = scratch.path("store.sqlite")
        let created = try await carebridge(["patients", "add", "ann", "--name", "Ann", "--store", store])
        #expect(created.status == 0, "\(created)")
        let remote = try await push(store, to: "http://ns.example.org", timeout: 1)
        #expect(remote.status == 64, "\(remote)")
        #expect(remote.stderr.contains("use https://"), "\(remote.stderr)")

        chmod(secretFile, 0o644)
        let shared = try await push(store, to: "http://127.0.0.1:1", timeout: 1)
        #expect(shared.stderr.contains("warning: --secret-file"), "\(shared.stderr)")
        #expect(!shared.stderr.contains(Self.secret))
    }
}
