import Foundation
import TestSupport
import Testing

/// `carebridge import btsnoop` writes the same recording, byte for byte, as the implementation that held the whole
/// capture in memory: the golden files under `Fixtures/btsnoop/` were written by that implementation (issue #31)
/// and are compared with what the streaming one writes, to a file and to standard output.
@Suite struct BTSnoopImportGoldenTests {
    /// A named capture and the options it is imported with.
    struct Fixture: CustomTestStringConvertible, Sendable {
        var name: String
        var arguments: [String]
        var bytes: @Sendable () -> [UInt8]
        var testDescription: String { name }
    }

    static let fixtures: [Fixture] = [
        Fixture(name: "weigh-in-h4", arguments: ["--time-zone", "Europe/Berlin"]) {
            BTSnoopWeighInCapture(format: .h4).bytes
        },
        Fixture(name: "weigh-in-monitor-no-advertising", arguments: []) {
            BTSnoopWeighInCapture(format: .monitor(controller: 1), advertising: false).bytes
        },
        Fixture(name: "weigh-in-bonded-named-handle", arguments: ["--handle", "0x0012=2A9D"]) {
            BTSnoopWeighInCapture(format: .h4, discovery: false).bytes
        },
        Fixture(name: "long-read-between-other-devices", arguments: ["--time-zone", "UTC"]) {
            longReadCapture(clockStepsBack: false)
        },
        Fixture(name: "clock-steps-back", arguments: ["--time-zone", "UTC"]) {
            longReadCapture(clockStepsBack: true)
        },
        Fixture(name: "cut-inside-last-record", arguments: ["--device", "C8:47:8C:00:12:34"]) {
            Array(BTSnoopWeighInCapture(format: .h4).bytes.dropLast(3))
        },
    ]

    static var goldenDirectory: URL {
        PackageRoot.url.appendingPathComponent("Tests/CLITests/Fixtures/btsnoop")
    }

    /// A long read (Read Response, then two Read Blob parts) whose parts arrive while another device advertises
    /// and a third one notifies: the read's value is known only at its last part, after events captured later,
    /// so the recording must put it back at the time of its first part. With `clockStepsBack`, the capturing
    /// clock goes back 30 s in the middle (a phone that set its clock), and later records are earlier.
    static func longReadCapture(clockStepsBack: Bool) -> [UInt8] {
        var capture = BTSnoopCaptureBuilder(format: .h4, start: BTSnoopWeighInCapture.start)
        let scale = BTSnoopWeighInCapture.scale
        let strap: [UInt8] = [0xA0, 0x11, 0x22, 0x33, 0x44, 0x55]
        capture.connectionComplete(handle: 0x0040, address: scale)
        capture.connectionComplete(handle: 0x0041, address: strap)
        // Strap: discovery of Heart Rate (180D): value handle 0x0012 is 2A37.
        capture.att([0x10, 0x01, 0x00, 0xFF, 0xFF, 0x00, 0x28], handle: 0x0041, received: false)
        capture.att([0x11, 0x06, 0x10, 0x00, 0x15, 0x00, 0x0D, 0x18], handle: 0x0041, received: true)
        capture.att([0x08, 0x10, 0x00, 0x15, 0x00, 0x03, 0x28], handle: 0x0041, received: false)
        capture.att([0x09, 0x07, 0x11, 0x00, 0x10, 0x12, 0x00, 0x37, 0x2A], handle: 0x0041, received: true)
        // Scale: a long Read of 0x0022 (2A29, Manufacturer Name), named on its own.
        capture.att([0x10, 0x01, 0x00, 0xFF, 0xFF, 0x00, 0x28], received: false)
        capture.att([0x11, 0x06, 0x20, 0x00, 0x24, 0x00, 0x0A, 0x18], received: true)
        capture.att([0x08, 0x20, 0x00, 0x24, 0x00, 0x03, 0x28], received: false)
        capture.att([0x09, 0x07, 0x21, 0x00, 0x02, 0x22, 0x00, 0x29, 0x2A], received: true)
        capture.att([0x0A, 0x22, 0x00], received: false)
        capture.att([0x0B] + Array("Acme Health Instruments ".utf8), received: true)
        for beat in 0..<3 {
            capture.advertisingReport(type: 0x00, address: [1, 2, 3, 4, 5, 6], data: [0x02, 0x01, 0x06], rssi: -70)
            capture.att([0x1B, 0x12, 0x00, 0x00, UInt8(60 + beat)], handle: 0x0041, received: true)
        }
        capture.att([0x0C, 0x22, 0x00, 0x16, 0x00], received: false)  // Read Blob at 22
        if clockStepsBack {
            capture.record([0x04, 0x0E, 0x04, 0x01, 0x00, 0x00, 0x00], flags: 0b11, after: -30)
        }
        capture.att([0x0D] + Array("GmbH & Co. KG, Germany".utf8), received: true)
        capture.advertisingReport(type: 0x00, address: [1, 2, 3, 4, 5, 6], data: [0x02, 0x01, 0x06], rssi: -71)
        capture.att([0x0C, 0x22, 0x00, 0x2C, 0x00], received: false)  // Read Blob at 44
        capture.att([0x0D] + Array(" (bench)".utf8), received: true)
        capture.att([0x1B, 0x12, 0x00, 0x00, 64], handle: 0x0041, received: true)
        // A second read that is still open when the scale disconnects.
        capture.att([0x0A, 0x22, 0x00], received: false)
        capture.att([0x0B] + Array("Acme".utf8), received: true)
        capture.disconnectionComplete(handle: 0x0040, reason: 0x13)
        capture.att([0x1B, 0x12, 0x00, 0x00, 65], handle: 0x0041, received: true)
        capture.disconnectionComplete(handle: 0x0041, reason: 0x08)
        return capture.bytes
    }

    func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("btsnoop-golden-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test(arguments: fixtures)
    func theRecordingIsByteForByteTheOneTheInMemoryImportWrote(_ fixture: Fixture) async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let capture = dir.appendingPathComponent("\(fixture.name).btsnoop")
        try Data(fixture.bytes()).write(to: capture)
        let out = dir.appendingPathComponent("out.jsonl")
        let toFile = try await CarebridgeProcess.run(
            ["import", "btsnoop", capture.path, "--out", out.path] + fixture.arguments
        )
        #expect(toFile.status == 0, "\(toFile.stderr)")
        let written = try Data(contentsOf: out)
        let toStandardOutput = try await CarebridgeProcess.run(["import", "btsnoop", capture.path] + fixture.arguments)
        #expect(toStandardOutput.status == 0, "\(toStandardOutput.stderr)")
        #expect(toStandardOutput.stdout == String(decoding: written, as: UTF8.self))
        #expect(toStandardOutput.stderr == toFile.stderr.replacingOccurrences(of: " → \(out.path)", with: ""))

        let golden = Self.goldenDirectory.appendingPathComponent("\(fixture.name).jsonl")
        let goldenStderr = Self.goldenDirectory.appendingPathComponent("\(fixture.name).stderr")
        let stderr = toStandardOutput.stderr
        if PackageRoot.isRecordingSnapshots {
            try FileManager.default.createDirectory(at: Self.goldenDirectory, withIntermediateDirectories: true)
            try written.write(to: golden)
            try Data(stderr.utf8).write(to: goldenStderr)
        }
        #expect(written == (try Data(contentsOf: golden)), "\(fixture.name): differs from \(golden.path)")
        #expect(stderr == (try String(contentsOf: goldenStderr, encoding: .utf8)))
    }
}
