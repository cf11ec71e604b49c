import Foundation
import TestSupport
import Testing

/// The process runner never deadlocks on a chatty child: both pipes are read while it runs.
@Suite(.timeLimit(.minutes(5)))
struct ChildProcessTests {
    static let shell = URL(fileURLWithPath: "/bin/sh")
    /// Slots of their own: these tests are about the runner, and have a time limit that a turn behind the
    /// suite's other children would eat.
    static let slots = ChildProcessSlots(limit: 4)

    @Test func aChildWritingMoreThan64KiBToStandardErrorFinishesAndEverythingIsCollected() async throws {
        // 1 MiB on stderr first (far past the 64 KiB pipe buffer), then a line on stdout: reading stdout to its
        // end before stderr would block forever.
        let script = "head -c 1048576 /dev/zero | tr '\\0' e >&2; echo out; head -c 300000 /dev/zero | tr '\\0' o"
        let output = try await ChildProcess.run(Self.shell, ["-c", script], slots: Self.slots)
        #expect(output.exited && output.status == 0)
        #expect(output.stderr.count == 1_048_576)
        #expect(output.stderr.allSatisfy { $0 == UInt8(ascii: "e") })
        #expect(output.stdout.count == 4 + 300_000)
        #expect(output.standardOutput.hasPrefix("out\n"))
    }

    @Test func standardInputIsWrittenWhileTheOutputIsRead() throws {
        let input = Data(repeating: UInt8(ascii: "i"), count: 200_000)
        let output = try ChildProcess.run(Self.shell, ["-c", "cat; cat >&2 </dev/null; echo done >&2"], stdin: input)
        #expect(output.status == 0)
        #expect(output.stdout == input)
        #expect(output.standardError == "done\n")
    }

    @Test func theExitStatusAndASignalAreReported() async throws {
        let failed = try await ChildProcess.run(Self.shell, ["-c", "echo no >&2; exit 3"], slots: Self.slots)
        #expect(failed.exited && failed.status == 3 && failed.standardError == "no\n")

        let child = try ChildProcess(Self.shell, ["-c", "exec sleep 30"])
        child.send(SIGKILL)
        let killed = await child.wait()
        #expect(!killed.exited && killed.status == SIGKILL)
    }

    @Test func eventuallyReportsWhetherTheConditionCameTrue() async throws {
        let start = ContinuousClock.now
        #expect(await eventually(timeout: .seconds(5)) { ContinuousClock.now - start > .milliseconds(50) })
        #expect(await eventually(timeout: .milliseconds(100)) { false } == false)
        await #expect(throws: EventuallyTimeout.self) {
            try await waitUntil("never", timeout: .milliseconds(50)) { false }
        }
    }

    @Test func theSeededGeneratorRepeatsItsSequence() {
        var first = SplitMix64(seed: 42)
        var second = SplitMix64(seed: 42)
        let a = (0..<8).map { _ in first.next() }
        #expect(a == (0..<8).map { _ in second.next() })
        #expect(Set(a).count == 8)
        #expect(PackageRoot.recordings.lastPathComponent == "Recordings")
    }
}
