import BridgeCore
import BridgeFoundation
import DeviceProfiles
import Foundation
import Logging
import SampleIngest
import TestSupport
import Testing

/// Encrypted MiBeacon scales through the pipeline: the published Xiaomi S400 advertisements of
/// Bluetooth-Devices/xiaomi-ble `tests/test_parser.py` (commit 509f516e46dfd21172a70c7e66955ecf3f0923e6) with their
/// published bind key, decrypted with the key the user gives per device.
@Suite struct MiBeaconPipelineTests {
    static let catalog = DeviceProfileLoader.load(directories: [PackageRoot.devices]).catalog
    static let address = "8C:D0:B2:F6:BE:EF"
    static let key: [UInt8] = [
        0x07, 0x28, 0x97, 0x4D, 0x65, 0x7A, 0x4B, 0x60, 0x96, 0x4C, 0x1B, 0x16, 0x77, 0xF3, 0x5F, 0x7C,
    ]
    /// Weight 69.9 kg, heart rate 92, impedance 543.2 Ω, stamped 2025-04-10T02:03:25Z.
    static let first: [UInt8] = [
        0x48, 0x59, 0xD5, 0x3B, 0x0A, 0xBC, 0x07, 0x8F, 0xF2, 0x34, 0x8C, 0x84, 0x41, 0x38, 0xE9, 0x30, 0x22, 0x00,
        0x00, 0x00, 0x9E, 0x53, 0x85, 0x99,
    ]
    /// The same weigh-in's second advertisement: only the other impedance.
    static let second: [UInt8] = [
        0x48, 0x59, 0xD5, 0x3B, 0x0B, 0xD6, 0xEF, 0x0B, 0x25, 0xDB, 0x72, 0x78, 0x5E, 0x7E, 0x2F, 0x46, 0xD6, 0x00,
        0x00, 0x00, 0xD8, 0x64, 0x2D, 0xF6,
    ]
    /// Seven seconds after the scale's stamp: a live weigh-in.
    static let start = Date(timeIntervalSince1970: 1_744_250_612)

    /// The advertisements, `gap` seconds apart, through a pipeline that has `keys`.
    static func run(
        _ frames: [[UInt8]],
        keys: BindKeys,
        gap: Double = 0.3
    ) -> (
        samples: [QuantitySample], issues: [PipelineIssue]
    ) {
        var configuration = PipelineConfiguration(timeZone: TimeZone(identifier: "UTC")!)
        configuration.bindKeys = keys
        var pipeline = IngestPipeline(
            catalog: catalog,
            configuration: configuration,
            logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
        )
        var samples: [QuantitySample] = []
        var issues: [PipelineIssue] = []
        for (index, bytes) in frames.enumerated() {
            pipeline.ingest(
                TransportEvent(
                    time: start.addingTimeInterval(Double(index) * gap),
                    device: address,
                    kind: .advertisement(Advertisement(serviceData: [BluetoothUUID(0xFE95): bytes]))
                ),
                samples: &samples,
                issues: &issues
            )
        }
        pipeline.finish(samples: &samples, issues: &issues)
        return (samples, issues)
    }

    @Test func aWeighInDecryptedWithItsBindKeyStoresWeightHeartRateAndImpedanceAtTheScalesTime() throws {
        let (samples, issues) = Self.run(
            [Self.first, Self.first, Self.second],
            keys: BindKeys([Self.address.lowercased(): Self.key])
        )
        #expect(samples.map(\.type) == [.bodyMass, .heartRate, .bodyImpedance])
        #expect(samples.map(\.value) == [69.9, 92, 543.2])
        #expect(samples.allSatisfy { $0.start == Date(timeIntervalSince1970: 1_744_250_605) })
        #expect(samples.allSatisfy { $0.metadata["userID"] == "1" })
        #expect(issues.isEmpty)
    }

    @Test func theSameWeighInAdvertisedAgainKeepsItsSampleIDsSoTheStoreKeepsItOnce() throws {
        let once = Self.run([Self.first, Self.second], keys: BindKeys([Self.address: Self.key]))
        // The scale keeps advertising: the first advertisement again after the second, and again a minute later.
        let again = Self.run(
            [Self.first, Self.second, Self.first, Self.second, Self.first],
            keys: BindKeys([Self.address: Self.key]),
            gap: 40
        )
        #expect(once.samples.count == 3)
        #expect(Set(again.samples.map(\.id)) == Set(once.samples.map(\.id)))
    }

    @Test func aWrongKeyStoresNothingAndSaysSoOnceForManyAdvertisements() {
        var wrong = Self.key
        wrong[15] ^= 0x01
        let (samples, issues) = Self.run(
            [Self.first, Self.second, Self.first, Self.second, Self.first],
            keys: BindKeys([Self.address: wrong]),
            gap: 40
        )
        #expect(samples.isEmpty)
        #expect(issues.count == 1)
        #expect(issues.first?.message.contains("does not authenticate with its bind key") == true)
        #expect(issues.first?.message.contains(Self.address) == true)
    }

    @Test func aScaleWithoutAKeyIsReportedOnceAndStoresNothing() {
        let (samples, issues) = Self.run(
            [Self.first, Self.second, Self.first],
            keys: BindKeys(["02:00:00:00:00:01": Self.key])
        )
        #expect(samples.isEmpty)
        #expect(issues.map(\.message).filter { $0.contains("no bind key for it") }.count == 1)
        #expect(issues.count == 1)
    }

    @Test func noWarningEverCarriesTheKey() {
        var wrong = Self.key
        wrong[0] ^= 0x01
        let (_, issues) = Self.run([Self.first], keys: BindKeys([Self.address: wrong]))
        let hex = wrong.map { String(format: "%02x", $0) }.joined()
        #expect(!issues.isEmpty)
        #expect(issues.allSatisfy { !$0.message.lowercased().contains(hex) })
    }
}
