import Foundation
import TestSupport
import Testing

/// A `run` that cannot start says why once.
@Suite struct RunFailureCommandTests {
    @Test func aBridgeThatCannotReachBlueZPrintsItsErrorOnce() async throws {
        let scratch = try ScratchDirectory("run-failure-")
        let result = try await CarebridgeProcess.run(
            ["run", "--store", scratch.path("store.sqlite"), "--duration", "1"],
            environment: ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=\(scratch.path("no-bus"))"]
        )
        #expect(result.status != 0, "\(result.stderr)")
        let lines = result.stderr.split(separator: "\n").filter { $0.contains("D-Bus system bus") }
        #expect(lines.count == 1, "\(result.stderr)")
    }
}
