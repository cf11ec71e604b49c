import BridgeCore
import BridgeFoundation
import DeviceProfiles
import Foundation
import SampleIngest
import TestSupport
import Testing

/// An HBF scale's measures without a quantity type (skeletal muscle %, visceral fat level, body age) are not lost:
/// through the whole pipeline they ride on the stored body-fat sample's metadata, and so reach `samples --json` and
/// the JSON Lines export (both write ``QuantitySample/json(in:)``).
@Suite struct OmronHBFExtraMeasuresTests {
    static let catalog = DeviceProfileLoader.load(directories: [PackageRoot.devices]).catalog

    @Test(arguments: [("omron-hbf-702t", "8"), ("omron-hbf-222t", "8")])
    func theStoredBodyFatSampleCarriesTheMeasuresWithoutAQuantityType(id: String, visceral: String) async throws {
        let profile = try #require(Self.catalog.profile(id: id))
        // openScale's record: 23.5 % fat, 31.2 % skeletal muscle, visceral fat level 8 (raw 16 half levels in the
        // 702T's record, raw 8 in the 32-byte one), body age 34.
        let fixture = try #require(profile.fixtures.first)
        let result = try await ProfileFixtureRunner.run(fixture, of: profile, catalog: Self.catalog)
        #expect(result.passed, "\(result.differences)")
        let fat = try #require(result.samples.first { $0.type == .bodyFatPercentage })
        #expect(fat.metadata["omron.skeletalMusclePercent"] == "31.2")
        #expect(fat.metadata["omron.visceralFatLevel"] == visceral)
        #expect(fat.metadata["omron.bodyAge"] == "34")
        #expect(fat.metadata["userID"] == "1")
        let others = result.samples.filter { $0.type != .bodyFatPercentage }
        #expect(others.count == 3 && others.allSatisfy { $0.metadata["omron.bodyAge"] == nil }, "once, on one sample")
        guard case .object(let json) = fat.json(in: TimeZone(identifier: "UTC")!),
            case .object(let metadata) = json["metadata"]
        else {
            Issue.record("no metadata object in \(fat.json(in: TimeZone(identifier: "UTC")!))")
            return
        }
        #expect(metadata["omron.skeletalMusclePercent"] == .string("31.2"))
        #expect(metadata["omron.bodyAge"] == .string("34"))
    }
}
