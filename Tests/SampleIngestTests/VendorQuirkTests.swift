import BridgeCore
import BridgeFoundation
import DeviceProfiles
import DeviceSessions
import Foundation
import GATTDecoding
import Logging
import SampleIngest
import Testing

/// Vendor quirks switched on by shipped profiles: a Beurer BM85 read right by `beurer-bm85`, the same bytes
/// quarantined under the generic profile; a device clock in UTC.
@Suite struct VendorQuirkTests {
    typealias T = IngestPipelineTests
    /// What a Beurer BM85 sends (see `PayloadQuirksTests.bm85`): 128/82, MAP 0, pulse 72 and status big-endian,
    /// a user ID although flag bit 3 is clear.
    static let bm85: [UInt8] = [0x14, 0x80, 0x00, 0x52, 0x00, 0x00, 0x00, 0x00, 0x48, 0x01, 0x00, 0x04]

    func cuff(named name: String?) -> T.Run {
        var run = T.Run()
        run.send(0, .advertisement(Advertisement(name: name, serviceUUIDs: [.bloodPressureService])))
        run.send(1, .connected)
        run.value(2, .bloodPressureMeasurement, Self.bm85)
        run.finish()
        return run
    }

    @Test(arguments: ["BM85", "BM48", "BM59", "ELITE900", "SBM69"])
    func theShippedProfileWinsAndReadsTheCuffRight(name: String) throws {
        let run = cuff(named: name)
        #expect(run.samples.map(\.type) == [.bloodPressureSystolic, .bloodPressureDiastolic, .heartRate])
        #expect(run.samples.map(\.value) == [128, 82, 72])
        #expect(run.samples.allSatisfy { !$0.isQuarantined })
        let profile = try #require(run.samples.first?.source.device?.profile)
        #expect(profile.hasPrefix("beurer-") || profile == "silvercrest-sbm")
        #expect(run.samples.first?.metadata["measurementStatus"] == "irregularPulse")
        #expect(run.samples.first?.metadata["userID"] == "1")
        // The device's own bytes are kept, so history can be decoded again.
        #expect(run.samples.first?.rawPayload == Self.bm85)
        // MAP 0 is "not computed": no value, and the report says so.
        #expect(run.issues.contains { $0.message.contains("meanArterialPressure is NaN") })
    }

    @Test func withoutANameTheGenericProfileQuarantinesWhatItMisreads() throws {
        let run = cuff(named: nil)
        #expect(run.samples.first?.source.device?.profile == "blood-pressure")
        let quarantined = run.samples.filter(\.isQuarantined).map(\.type)
        #expect(quarantined == [.meanArterialPressure, .heartRate])
        #expect(run.samples.filter { !$0.isQuarantined }.map(\.value) == [128, 82])
    }

    @Test func deviceTimeIsUTCReadsTheStampInUTC() throws {
        func thermometer(utc: Bool) throws -> QuantitySample {
            var quirks = DeviceProfile.Quirks()
            quirks.deviceTimeIsUTC = utc
            let profile = DeviceProfile(
                id: "utc-thermometer",
                name: "UTC thermometer",
                match: DeviceProfile.Match(namePattern: "UTC*", priority: 100),
                linkMode: .gatt,
                characteristics: [
                    DeviceProfile.Characteristic(
                        uuid: .temperatureMeasurement,
                        use: .indicate,
                        reading: .measurement(TemperatureMeasurement.self)
                    )
                ],
                quirks: quirks
            )
            var run = T.Run()
            run.pipeline = IngestPipeline(
                catalog: DeviceCatalog(profiles: T.catalog.profiles + [profile]),
                configuration: PipelineConfiguration(timeZone: T.zone),
                logger: Logger(label: "t") { _ in SwiftLogNoOpLogHandler() }
            )
            run.send(0, .advertisement(Advertisement(name: "UTC-1", serviceUUIDs: [.healthThermometerService])))
            // 36.5 °C with time stamp 2026-11-20 06:59:30 (flags 02).
            run.value(2, .temperatureMeasurement, [0x02, 0x6D, 0x01, 0x00, 0xFF] + T.dateTime(2026, 11, 20, 6, 59, 30))
            run.finish()
            return try #require(run.samples.first)
        }
        // 06:59:30 UTC is 07:59:30 in Berlin: 30 s before the receive time.
        #expect(try thermometer(utc: true).start == T.start.addingTimeInterval(-30))
        #expect(try thermometer(utc: false).start == T.start.addingTimeInterval(-3630))
    }
}

/// Bounds on input: an attribute value is at most 512 bytes (ATT), anything longer is refused as a bad event.
@Suite struct ValueLengthTests {
    typealias T = IngestPipelineTests

    @Test func aValueLongerThanTheATTMaximumIsABadEvent() {
        var run = T.Run()
        T.connectedScale(&run)
        // A Weight Measurement followed by padding: 512 bytes are decoded (trailing bytes are ignored), 513 refused.
        let weight = T.weight(at: T.dateTime(2026, 11, 20, 7, 59, 30))
        run.value(2, .weightMeasurement, weight + Array(repeating: 0, count: 512 - weight.count))
        run.value(3, .weightMeasurement, weight + Array(repeating: 1, count: 513 - weight.count))
        run.finish()
        #expect(run.samples.count == 1)
        let bad = run.issues.filter { $0.severity == .badEvent }
        #expect(bad.count == 1)
        #expect(bad.first?.message.contains("513 bytes") == true)
        #expect(bad.first?.message.contains("ATT maximum of 512 bytes: refused") == true)
    }
}
