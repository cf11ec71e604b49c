import BridgeCore
import BridgeFoundation
import CareBridgeKit
import DeviceProfiles
import Foundation
import GATTDecoding
import Logging
import Testing

/// The `fixtures` of the shipped Omron memory-map profiles (FRAMES-SPEC §3 form), fed through the real ingest
/// pipeline: each fixture's receive-channel pieces give exactly its expected samples. (`carebridge profile test`
/// runs every profile's fixtures; this keeps the Omron ones checked on their own.)
@Suite struct OmronProfileFixtureTests {
    static let catalog = DeviceProfileLoader.load(directories: [PackageFixtures.devices]).catalog
    static let files: [String] =
        ((try? FileManager.default.contentsOfDirectory(atPath: PackageFixtures.devices.path)) ?? [])
        .filter { $0.hasPrefix("omron-hem-") && $0.hasSuffix(".json") }.sorted()

    @Test("each fixture gives its expected samples", arguments: files)
    func fixturesGiveTheirSamples(file: String) throws {
        let text = try String(contentsOf: PackageFixtures.devices.appendingPathComponent(file), encoding: .utf8)
        let root = try JSONReader(JSONValue.parse(text)).object()
        let id = try root.required("id").string()
        let fixtures = try root.required("fixtures").array()
        #expect(!fixtures.isEmpty)
        let zone = TimeZone(identifier: "UTC")!
        for fixture in fixtures {
            let object = try fixture.object()
            let name = try object.required("name").string()
            var pipeline = IngestPipeline(
                catalog: Self.catalog,
                configuration: PipelineConfiguration(timeZone: zone),
                logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
            )
            var samples: [QuantitySample] = []
            var issues: [PipelineIssue] = []
            let time = Date(timeIntervalSince1970: 1_800_000_000)
            let advertisement = try object.required("advertisement").object()
            let device = "02:00:00:00:00:70"
            pipeline.ingest(
                TransportEvent(
                    time: time,
                    device: device,
                    kind: .advertisement(Advertisement(name: try advertisement.required("name").string()))
                ),
                samples: &samples,
                issues: &issues
            )
            #expect(pipeline.deviceSummaries.first?.profile == id, "\(name): the advertisement is claimed by \(id)")
            pipeline.ingest(
                TransportEvent(time: time, device: device, kind: .connected),
                samples: &samples,
                issues: &issues
            )
            for value in try object.required("values").array() {
                let members = try value.object()
                let uuid = try #require(BluetoothUUID(try members.required("characteristic").string()))
                let bytes = try Hex.bytes(try members.required("hex").string())
                pipeline.ingest(
                    TransportEvent(
                        time: time,
                        device: device,
                        kind: .value(CharacteristicValue(characteristic: uuid, bytes: bytes, delivery: .notification))
                    ),
                    samples: &samples,
                    issues: &issues
                )
            }
            pipeline.finish(samples: &samples, issues: &issues)
            #expect(issues.isEmpty, "\(name): \(issues)")
            var expected: [String] = []
            for entry in try object.required("expect").array() {
                let members = try entry.object()
                expected.append(
                    [
                        try members.required("type").string(), "\(Int(try members.required("value").number()))",
                        try members.required("unit").string(), "\(try members.required("userIndex").integer())",
                        try members.required("time").string(),
                    ].joined(separator: " ")
                )
            }
            let actual = samples.map { sample in
                let unit = sample.type == .heartRate ? "bpm" : "mmHg"
                let time = sample.deviceTime.map {
                    String(
                        format: "%04d-%02d-%02dT%02d:%02d:%02d",
                        $0.year,
                        $0.month,
                        $0.day,
                        $0.hours,
                        $0.minutes,
                        $0.seconds
                    )
                }
                return [
                    sample.type.rawValue, "\(Int(sample.value))", unit, sample.metadata["userID"] ?? "-", time ?? "-",
                ].joined(separator: " ")
            }
            #expect(actual == expected, "\(file): \(name)")
        }
    }
}
