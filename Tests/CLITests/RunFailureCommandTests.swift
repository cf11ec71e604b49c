import Foundation
import TestSupport
import Testing

/// A `run` that cannot start says why once.
@Suite struct RunFailureCommandTests {
    /// `carebridge run --store STORE --duration 1` with a system bus that does not exist.
    func runWithoutBus(store: String, in scratch: ScratchDirectory) async throws -> CarebridgeProcess.Result {
        try await CarebridgeProcess.run(
            ["run", "--store", store, "--duration", "1"],
            environment: ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=\(scratch.path("no-bus"))"]
        )
    }

    @Test func aBridgeThatCannotReachBlueZPrintsItsErrorOnce() async throws {
        let scratch = try ScratchDirectory("run-failure-")
        let result = try await runWithoutBus(store: scratch.path("store.sqlite"), in: scratch)
        #expect(result.status != 0, "\(result.stderr)")
        let lines = result.stderr.split(separator: "\n").filter { $0.contains("D-Bus system bus") }
        #expect(lines.count == 1, "\(result.stderr)")
    }

    @Test func aRunThatFailsBeforeStoringAReadingLeavesNoNewStoreBehind() async throws {
        let scratch = try ScratchDirectory("run-failure-")
        let result = try await runWithoutBus(store: scratch.path("new/data/store.sqlite"), in: scratch)
        #expect(result.status != 0, "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scratch.path("new")), "\(result.stderr)")
    }

    @Test func aRunThatFailsKeepsAStoreThatExistedBefore() async throws {
        let scratch = try ScratchDirectory("run-failure-")
        let store = scratch.path("store.sqlite")
        let plan = try await CarebridgeProcess.run(
            ["plan", "apply", PackageRoot.recording("care-plan.json"), "--store", store]
        )
        #expect(plan.status == 0, "\(plan.stderr)")
        let result = try await runWithoutBus(store: store, in: scratch)
        #expect(result.status != 0, "\(result.stderr)")
        #expect(FileManager.default.fileExists(atPath: store))
    }
}
