import Foundation
import TestSupport
import Testing

/// Read commands never create a store, and a store this user may not write (or read) is explained: whose
/// file it is and what to do. As root (CI) the other user is `nobody` through `setpriv`; otherwise the store is
/// made read-only with chmod.
@Suite struct StoreAccessCommandTests {
    /// This test's directory, removed when the test ends.
    let scratch: ScratchDirectory
    var directory: URL { scratch.url }

    init() throws {
        scratch = try ScratchDirectory("access-cli-")
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: scratch.path)
    }

    static var isRoot: Bool { geteuid() == 0 }

    /// Runs carebridge as a user who does not own the store (nobody when we are root).
    func runAsOther(_ arguments: [String]) async throws -> CarebridgeProcess.Result {
        guard Self.isRoot else { return try await CarebridgeProcess.run(arguments) }
        return try await CarebridgeProcess.run(
            ["--reuid=65534", "--regid=65534", "--clear-groups", CarebridgeProcess.executable.path] + arguments,
            executable: URL(fileURLWithPath: "/usr/bin/setpriv")
        )
    }

    func makeStore() async throws -> String {
        let store = directory.appendingPathComponent("store.sqlite").path
        let ingest = try await CarebridgeProcess.run([
            "ingest", "--store", store, "bodyMass", "72.5", "kg", "--at", "2026-11-20T07:30:00+01:00", "--force",
        ])
        #expect(ingest.status == 0, "\(ingest.stderr)")
        return store
    }

    /// A store the other user may read but not write (its directory too, when that user is us); the caller
    /// makes the directory writable again.
    func makeReadOnlyStore() async throws -> String {
        let store = try await makeStore()
        chmod(store, 0o644)
        if !Self.isRoot { chmod(directory.path, 0o555) }
        return store
    }

    @Test(
        "a read command on a mistyped --store says there is no store and creates nothing",
        arguments: [
            ["events"], ["samples"], ["tasks"], ["adherence"], ["plan", "show"], ["export", "--format", "csv"],
        ]
    )
    func mistypedStoreCreatesNothing(command: [String]) async throws {
        let store = directory.appendingPathComponent("typo/store.sqlite").path
        let result = try await CarebridgeProcess.run(command + ["--store", store])
        #expect(result.status == 74)
        #expect(result.stderr.contains("no store at \(store)"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("typo").path))
    }

    @Test("a store this user may only read is listed and exported; writing to it is refused naming the owner")
    func readOnlyStore() async throws {
        let store = try await makeReadOnlyStore()
        defer { chmod(directory.path, 0o755) }
        let samples = try await runAsOther(["samples", "--store", store, "--json"])
        #expect(samples.status == 0, "\(samples.stderr)")
        #expect((try JSONSerialization.jsonObject(with: Data(samples.stdout.utf8)) as? [Any])?.count == 1)
        let export = try await runAsOther(["export", "--store", store, "--format", "csv"])
        #expect(export.status == 0, "\(export.stderr)")
        #expect(export.stdout.contains("bodyMass,72.5,kg"))

        let ingest = try await runAsOther(["ingest", "--store", store, "bodyMass", "70", "kg"])
        #expect(ingest.status == 74)
        #expect(ingest.stderr.contains("cannot write store \(store)"), "\(ingest.stderr)")
        if Self.isRoot { #expect(ingest.stderr.contains("belongs to root"), "\(ingest.stderr)") }
        #expect(ingest.stderr.contains("sudo -u"), "\(ingest.stderr)")
    }

    @Test("a store this user may only read gives insights, alerts and a report, its alerts as last evaluated")
    func readOnlyStoreShowsInsightsAlertsAndAReport() async throws {
        let store = try await makeReadOnlyStore()
        defer { chmod(directory.path, 0o755) }
        let commands = [
            ["insights", "--from", "2026-11-14", "--to", "2026-11-21"], ["alerts", "--days", "30"],
            ["report", "--format", "html", "--out", "/dev/null", "--from", "2026-11-14", "--to", "2026-11-21"],
        ]
        for command in commands {
            let result = try await runAsOther(command + ["--store", store])
            #expect(result.status == 0, "\(command): \(result.stderr)")
            #expect(result.stderr.contains("\(store) is read-only for you: alerts are shown as last evaluated"))
            #expect(!result.stderr.contains("cannot write store"), "\(command): \(result.stderr)")
        }
        // Recording that the report was shared writes: refused, naming the owner.
        let shared = try await runAsOther([
            "report", "--format", "html", "--out", "/dev/null", "--share-with", "gp", "--store", store,
        ])
        #expect(shared.status == 74, "\(shared.stderr)")
        #expect(shared.stderr.contains("cannot write store \(store)"), "\(shared.stderr)")
    }

    @Test("a store of another user that this user cannot read names the owner and what to do")
    func anotherUsersStore() async throws {
        let store = try await makeStore()
        if !Self.isRoot { chmod(store, 0o000) }
        defer { chmod(store, 0o600) }
        for command in [["events", "--store", store], ["ingest", "--store", store, "heartRate", "60", "bpm"]] {
            let result = try await runAsOther(command)
            #expect(result.status == 74)
            #expect(result.stderr.contains("cannot read store \(store)"), "\(result.stderr)")
            if Self.isRoot { #expect(result.stderr.contains("belongs to root (mode 600) and you are nobody")) }
            #expect(result.stderr.contains("chown"), "\(result.stderr)")
        }
    }
}
