import Foundation
import TestSupport
import Testing

/// `carebridge import btsnoop` reads a capture a record at a time and writes the recording as it goes: its peak
/// memory does not grow with the capture (issue #31: a 51 MB capture took 539 MB when it was held in memory).
@Suite struct BTSnoopImportMemoryTests {
    /// Runs `argv[1:]` in a child forked from this small interpreter and prints the child's peak resident size in
    /// KiB (`ru_maxrss` from `wait4`: the kernel's high-water mark of that process, VmHWM at its exit). The child
    /// is forked from Python rather than spawned from the test process, because a peak survives `exec` and the
    /// test process is large.
    static let peakResidentSize = """
        import os, sys
        pid = os.fork()
        if pid == 0:
            os.execv(sys.argv[1], sys.argv[1:])
        _, status, usage = os.wait4(pid, 0)
        print(usage.ru_maxrss)
        sys.exit(os.waitstatus_to_exitcode(status))
        """

    /// A heart-rate strap's capture of about `megabytes` MB: connection, discovery, then notifications of 100
    /// bytes each (one ACL packet each), written to `url` a megabyte at a time.
    static func writeStrapCapture(megabytes: Int, to url: URL) throws {
        let strap: [UInt8] = [0xA0, 0x11, 0x22, 0x33, 0x44, 0x55]
        var capture = BTSnoopCaptureBuilder(format: .h4, start: BTSnoopWeighInCapture.start)
        capture.connectionComplete(address: strap)
        capture.att([0x10, 0x01, 0x00, 0xFF, 0xFF, 0x00, 0x28], received: false)
        capture.att([0x11, 0x06, 0x10, 0x00, 0x15, 0x00, 0x0D, 0x18], received: true)
        capture.att([0x08, 0x10, 0x00, 0x15, 0x00, 0x03, 0x28], received: false)
        capture.att([0x09, 0x07, 0x11, 0x00, 0x10, 0x12, 0x00, 0x37, 0x2A], received: true)
        try Data(capture.bytes).write(to: url)
        let file = try FileHandle(forWritingTo: url)
        defer { try? file.close() }
        try file.seekToEnd()
        var time = capture.time
        var written = capture.bytes.count
        var beat = 0
        while written < megabytes << 20 {
            var chunk = BTSnoopCaptureBuilder(format: .h4, start: time)
            while chunk.bytes.count < 1 << 20 {
                // Heart Rate Measurement: flags 0x10 (RR intervals), 72 bpm, 49 RR intervals.
                let value: [UInt8] = [0x10, 72] + (0..<49).flatMap { [UInt8(truncatingIfNeeded: beat + $0), 0x03] }
                chunk.att([0x1B, 0x12, 0x00] + value, received: true, fragment: 251, after: 1)
                beat += 1
            }
            let records = chunk.bytes.dropFirst(16)  // the chunk's own file header
            try file.write(contentsOf: records)
            written += records.count
            time = chunk.time
        }
    }

    /// The peak resident size in KiB of `carebridge import btsnoop` over a generated capture of `megabytes` MB.
    func peakOfImport(megabytes: Int, in dir: URL) async throws -> Int {
        let capture = dir.appendingPathComponent("strap-\(megabytes).btsnoop")
        // Twenty megabytes of capture built in a debug build take the CPU for a while: off the cooperative pool.
        try await CPUBoundWork.run { try Self.writeStrapCapture(megabytes: megabytes, to: capture) }
        let out = dir.appendingPathComponent("strap-\(megabytes).jsonl")
        let result = try await CarebridgeProcess.run(
            [
                "-c", Self.peakResidentSize, CarebridgeProcess.executable.path,
                "import", "btsnoop", capture.path, "--out", out.path, "--time-zone", "UTC", "--json",
            ],
            executable: URL(fileURLWithPath: "/usr/bin/python3")
        )
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        let first = try #require(lines.first)
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(first.utf8)) as? [String: Any])
        // Every notification became a line of the recording.
        let notifications = try #require(summary["notifications"] as? Int)
        #expect(notifications > megabytes * 7_000)
        let recorded = try String(contentsOf: out, encoding: .utf8).split(separator: "\n").count
        #expect(recorded == 1 + 1 + 1 + notifications)  // header, connected, services, values
        try FileManager.default.removeItem(at: capture)
        try FileManager.default.removeItem(at: out)
        let peak = try #require(lines.last.flatMap { Int($0) })
        return peak
    }

    @Test func peakMemoryIsTheSameForACaptureFourTimesAsLarge() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("btsnoop-memory-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let small = try await peakOfImport(megabytes: 4, in: dir)
        let large = try await peakOfImport(megabytes: 16, in: dir)
        // Streamed, both peak at the executable's own size (39 MB in a debug build, 10 MB and 40 MB alike). Held in
        // memory, a capture took 4–5 times its size on top: about 55 MB more for 16 MB than for 4 MB.
        #expect(large < 80 * 1024, "peak \(large) KiB for a 16 MB capture")
        #expect(large - small < 8 * 1024, "peak \(small) KiB for 4 MB, \(large) KiB for 16 MB")
    }
}
