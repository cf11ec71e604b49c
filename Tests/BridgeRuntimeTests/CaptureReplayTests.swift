import BridgeCore
import BridgeRuntime
import CareStore
import DeviceProfiles
import Foundation
import Logging
import SampleIngest
import SessionReplay
import TestSupport
import Testing

/// A capture of another client (a vendor's phone app, imported from an HCI snoop log) replays to the device's
/// results: the bridge's own Record Access Control Point requests are answered from the records the capture
/// shows, while the bridge's own recordings keep their byte-for-byte divergence check.
@Suite struct CaptureReplayTests {
    static let zone = TimeZone(identifier: "Europe/Berlin")!
    static let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }

    /// The shape of an imported capture (`import btsnoop`: `"source": "btsnoop"`): the phone app asks "report all
    /// records" (01 01) straight away, the meter answers with three records (a LO with its context, 104 and
    /// 120 mg/dL) and the RACP response; the bridge's glucose session asks "how many" (04 01) first.
    static func capture(source: String? = "btsnoop") -> String {
        let header =
            #"{"format": "carebridge-recording", "version": 1, "recordedAt": "2026-11-20T07:20:00+01:00", "#
            + #""timeZone": "Europe/Berlin""#
            + (source.map { #", "source": "\#($0)", "capture": "btsnoop_hci.log", "datalink": 1002"# } ?? "") + "}"
        let device = #""device": "02:00:00:00:00:31""#
        return [
            header,
            #"{"t": 0.3, "kind": "advertisement", \#(device), "name": "Meter", "serviceUUIDs": ["1808"]}"#,
            #"{"t": 0.9, "kind": "connected", \#(device)}"#,
            #"{"t": 1.5, "kind": "services", \#(device), "services": {"1808": ["2A18", "2A34", "2A51", "2A52"]}}"#,
            // The phone app's request: report all stored records.
            #"{"t": 2.0, "kind": "write", \#(device), "characteristic": "2A52", "value": "0101"}"#,
            // seq 1, 2026-11-19 06:40, SFLOAT -INF (LO), context follows; its context: preprandial.
            #"{"t": 2.2, "kind": "notification", \#(device), "characteristic": "2A18", "value": "120100ea070b13062800020812"}"#,
            #"{"t": 2.25, "kind": "notification", \#(device), "characteristic": "2A34", "value": "02010001"}"#,
            // seq 2, 2026-11-19 12:30, 104 mg/dL; seq 3, 2026-11-20 07:00, 120 mg/dL.
            #"{"t": 2.3, "kind": "notification", \#(device), "characteristic": "2A18", "value": "020200ea070b130c1e0068b012"}"#,
            #"{"t": 2.4, "kind": "notification", \#(device), "characteristic": "2A18", "value": "020300ea070b1407000078b012"}"#,
            #"{"t": 2.5, "kind": "indication", \#(device), "characteristic": "2A52", "value": "06000101"}"#,
            #"{"t": 4.0, "kind": "disconnected", \#(device), "reason": "remote"}"#,
        ].joined(separator: "\n") + "\n"
    }

    static func replay(
        _ path: String,
        into store: CareStore
    ) async throws -> (PipelineReport, CareStoreSink) {
        let sink = CareStoreSink(store: store, recordedAt: Date(timeIntervalSince1970: 1_795_160_000))
        let report = try await PipelineRunner.replay(
            try ReplayTransport(path: path, logger: logger),
            catalog: DeviceProfileLoader.load(directories: [PackageRoot.devices]).catalog,
            configuration: PipelineConfiguration(timeZone: zone),
            sink: sink,
            logger: logger
        )
        return (report, sink)
    }

    @Test func aCaptureOfAPhoneAppReplaysToTheMetersResultsAndASecondReplayStoresNothingNew() async throws {
        let directory = try TemporaryDirectory.make()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("capture.jsonl").path
        try Self.capture().write(toFile: path, atomically: true, encoding: .utf8)
        let store = try CareStore(
            path: directory.appendingPathComponent("store.sqlite").path,
            bridgeZone: Self.zone,
            logger: Self.logger
        )

        let (report, sink) = try await Self.replay(path, into: store)
        #expect(report.badEvents.isEmpty, "\(report.badEvents)")
        #expect(await sink.inserted == 3)
        let stored = try await store.samples(matching: SampleQuery()).map(\.sample).sorted { $0.start < $1.start }
        #expect(stored.map(\.type) == [.bloodGlucose, .bloodGlucose, .bloodGlucose])
        #expect(stored.first?.comparator == .lessThan, "the LO is kept as a LO")
        #expect(stored.first?.metadata["mealName"] == "preprandial", "its context came with it")
        #expect(stored.dropFirst().map(\.value) == [104, 120])
        #expect(report.downloadedRecords == 3)
        let answers = report.sessionAnswers.map(\.message)
        #expect(
            answers.contains { $0.contains("synthesised: 2A52 04 01 answered 2A52 05 00 03 00: 3 of the 3 records") },
            "\(answers)"
        )
        #expect(
            answers.contains { $0.contains("synthesised: 2A52 01 01 answered 2A52 06 00 01 01: 3 of the 3 records") },
            "\(answers)"
        )
        #expect(answers.contains { $0.contains("not replayed: 1 write(s) of the captured client") }, "\(answers)")

        let (again, second) = try await Self.replay(path, into: store)
        #expect(again.badEvents.isEmpty, "\(again.badEvents)")
        #expect(await second.inserted == 0)
        #expect(await second.duplicates == 3)
        #expect(try await store.sampleCount() == 3)
    }

    @Test func theBridgesOwnRecordingKeepsItsStrictDivergenceCheck() async throws {
        let directory = try TemporaryDirectory.make()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("own.jsonl").path
        try Self.capture(source: nil).write(toFile: path, atomically: true, encoding: .utf8)
        let store = try CareStore(
            path: directory.appendingPathComponent("store.sqlite").path,
            bridgeZone: Self.zone,
            logger: Self.logger
        )
        let (report, sink) = try await Self.replay(path, into: store)
        #expect(
            report.badEvents.contains {
                $0.message.contains("divergence: the bridge wrote 2A52 04 01 where the recording shows 2A52 01 01")
            },
            "\(report.badEvents)"
        )
        #expect(await sink.inserted == 0, "the answers after the divergence are withheld")
        #expect(report.sessionAnswers.isEmpty)
    }
}
