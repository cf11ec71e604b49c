import BridgeCore
import Foundation
import GATTDecoding
import Testing

/// LO/HI results (IEEE 11073 −INF/+INF, glucose sensor-status bits 5/6) are samples with a comparator; NaN, NRes
/// and reserved stay "no value". Payloads are built from the field tables in `gatt-reference.md` §2, §6, §8, §9.
@Suite struct OutOfRangeSamplesTests {
    /// 2024-03-15 07:30:00.
    private let base: [UInt8] = [0xE8, 0x07, 0x03, 0x0F, 0x07, 0x1E, 0x00]

    /// Glucose Measurement with concentration (kg/L) `code` and type/location 0x11 (capillary blood, finger).
    private func glucose(_ code: [UInt8], flags: UInt8 = 0x02, status: [UInt8] = []) -> [UInt8] {
        [flags, 0x07, 0x00] + base + code + [0x11] + status
    }

    @Test func glucoseNegativeInfinityIsALowReadingNotNothing() throws {
        let result = try samples(GlucoseMeasurement.self, glucose([0x02, 0x08]))
        let sample = try #require(result.first)
        #expect(result.count == 1)
        #expect(sample.type == .bloodGlucose)
        #expect(sample.comparator == .lessThan)
        #expect(sample.value == -.infinity)
        #expect(sample.orderingValue == -.infinity)
        #expect(sample.metadata["sequenceNumber"] == "7")
        #expect(berlinTime(sample.start) == "2024-03-15T07:30:00+01:00")
    }

    @Test func glucosePositiveInfinityIsAHighReading() throws {
        let sample = try #require(try samples(GlucoseMeasurement.self, glucose([0xFE, 0x07])).first)
        #expect(sample.comparator == .greaterThan)
        #expect(sample.value == .infinity)
    }

    @Test func sensorStatusLowerWithTheMeterLimitKeepsTheLimit() throws {
        // flags 0x0A: concentration + status; 20 × 10⁻⁵ kg/L = 20 mg/dL (SFLOAT E = −5 → 0xB014); status bit 6.
        let sample = try #require(
            try samples(GlucoseMeasurement.self, glucose([0x14, 0xB0], flags: 0x0A, status: [0x40, 0x00])).first
        )
        #expect(sample.comparator == .lessThan)
        #expect(sample.value == 20)
        #expect(sample.metadata["sensorStatus"] == "result lower than the device can process")
    }

    @Test func sensorStatusHigherWithoutAConcentrationIsStillAReading() throws {
        // flags 0x08: status only (no concentration field); status bit 5 "result higher than the device can process".
        let payload: [UInt8] = [0x08, 0x09, 0x00] + base + [0x20, 0x00]
        let sample = try #require(try samples(GlucoseMeasurement.self, payload).first)
        #expect(sample.comparator == .greaterThan)
        #expect(sample.value == .infinity)
    }

    @Test func nanWithTheLowerStatusBitIsALowReading() throws {
        let sample = try #require(
            try samples(GlucoseMeasurement.self, glucose([0xFF, 0x07], flags: 0x0A, status: [0x40, 0x00])).first
        )
        #expect(sample.comparator == .lessThan)
    }

    @Test func nanNResAndReservedGiveNoGlucoseSample() throws {
        for code: [UInt8] in [[0xFF, 0x07], [0x00, 0x08], [0x01, 0x08]] {
            #expect(try samples(GlucoseMeasurement.self, glucose(code)).isEmpty, "\(code)")
        }
    }

    @Test func aControlSolutionLowIsNoPatientReading() throws {
        // type 10 control solution (low nibble), location 4 (high nibble).
        let payload: [UInt8] = [0x02, 0x07, 0x00] + base + [0x02, 0x08, 0x4A]
        #expect(try samples(GlucoseMeasurement.self, payload).isEmpty)
    }

    @Test func thermometerInfinitiesAreLowAndHighReadings() throws {
        // Temperature FLOAT −INF `02 00 80 00`, +INF `FE FF 7F 00`, NaN `FF FF 7F 00`, NRes `00 00 80 00`.
        let low = try #require(try samples(TemperatureMeasurement.self, [0x00, 0x02, 0x00, 0x80, 0x00]).first)
        #expect(low.comparator == .lessThan)
        #expect(low.type == .bodyTemperature)
        let high = try #require(try samples(TemperatureMeasurement.self, [0x01, 0xFE, 0xFF, 0x7F, 0x00]).first)
        #expect(high.comparator == .greaterThan)
        #expect(high.value == .infinity)
        #expect(try samples(TemperatureMeasurement.self, [0x00, 0xFF, 0xFF, 0x7F, 0x00]).isEmpty)
        #expect(try samples(TemperatureMeasurement.self, [0x00, 0x00, 0x00, 0x80, 0x00]).isEmpty)
    }

    @Test func bloodPressureInfinityIsAHighSystolicNaNIsNoMeanPressure() throws {
        // flags 0x00 (mmHg); systolic +INF `FE 07`, diastolic 80 `50 00`, MAP NaN `FF 07`.
        let result = try samples(BloodPressureMeasurement.self, [0x00, 0xFE, 0x07, 0x50, 0x00, 0xFF, 0x07])
        #expect(result.map(\.type) == [.bloodPressureSystolic, .bloodPressureDiastolic])
        #expect(result[0].comparator == .greaterThan)
        #expect(result[1].comparator == nil)
        #expect(result[1].value == 80)
    }

    @Test func aLowSortsBelowEveryNumberAndAHighAboveEveryNumber() throws {
        var low = QuantitySample(
            type: .bloodGlucose,
            value: 20,
            unit: .milligramPerDecilitre,
            start: Date(),
            source: .manual
        )
        low.comparator = .lessThan
        var high = low
        high.comparator = .greaterThan
        high.value = 600
        #expect(low.orderingValue < -Double.greatestFiniteMagnitude)
        #expect(high.orderingValue > Double.greatestFiniteMagnitude)
    }
}

/// The safety stage: device limits on LO/HI, quarantine for implausible values and invalidating status flags.
@Suite struct SampleScreeningTests {
    private func sample(_ type: QuantityType, _ value: Double, metadata: [String: String] = [:]) -> SampleDraft {
        QuantitySample(
            type: type,
            value: value,
            unit: type.canonicalUnit,
            start: Date(timeIntervalSince1970: 1_800_000_000),
            source: .device(BloodPressureMeasurement.self),
            metadata: metadata
        ).draft
    }

    @Test func aLowGlucoseGetsTheProfileLimitAndStaysUsable() {
        var low = sample(.bloodGlucose, -.infinity)
        low.comparator = .lessThan
        SampleScreening(measurementRanges: [.bloodGlucose: 20...600]).screen(&low)
        #expect(low.value == 20)
        #expect(low.transmittedValue == 20)
        #expect(low.comparator == .lessThan)
        #expect(!low.isQuarantined)
        var high = sample(.bloodGlucose, .infinity)
        high.comparator = .greaterThan
        SampleScreening(measurementRanges: [.bloodGlucose: 20...600]).screen(&high)
        #expect(high.value == 600)
    }

    @Test func withoutAKnownLimitALowStaysUnbounded() {
        var low = sample(.bloodGlucose, -.infinity)
        low.comparator = .lessThan
        SampleScreening().screen(&low)
        #expect(low.value == -.infinity)
        #expect(!low.isQuarantined)
    }

    /// The values of the issue: a Beurer cuff read with the standard byte order, a thermometer's 51 and 375 °C.
    @Test(arguments: [
        (QuantityType.heartRate, -256_000.0), (.heartRate, 179_200_000), (.meanArterialPressure, 0),
        (.bodyTemperature, 51), (.bodyTemperature, 375), (.oxygenSaturation, 2047), (.bodyMass, 0),
        (.bloodGlucose, 0), (.bloodPressureSystolic, 500),
    ])
    func implausibleValuesAreQuarantinedWithTheReason(type: QuantityType, value: Double) {
        var screened = sample(type, value)
        SampleScreening().screen(&screened)
        #expect(screened.isQuarantined)
        #expect(screened.quarantineReason?.contains("implausible \(type.title)") == true)
        #expect(screened.value == value)
    }

    @Test func plausibleValuesPass() {
        for (type, value) in [(QuantityType.heartRate, 72.0), (.bodyTemperature, 36.6), (.meanArterialPressure, 93)] {
            var screened = sample(type, value)
            SampleScreening().screen(&screened)
            #expect(!screened.isQuarantined, "\(type)")
        }
    }

    @Test func aProfileMayWidenOrNarrowARow() {
        var fast = sample(.heartRate, 320)
        SampleScreening(plausibility: PlausibilityTable.standard.overriding([.heartRate: 20...350])).screen(&fast)
        #expect(!fast.isQuarantined)
        var slow = sample(.heartRate, 35)
        SampleScreening(plausibility: PlausibilityTable.standard.overriding([.heartRate: 40...220])).screen(&slow)
        #expect(slow.isQuarantined)
    }

    @Test func invalidatingStatusFlagsQuarantineWarningsDoNot() {
        var strip = sample(.bloodGlucose, 95, metadata: ["sensorStatus": "device battery low, strip insertion error"])
        SampleScreening().screen(&strip)
        #expect(strip.quarantineReason == "device status says the value is invalid: strip insertion error")
        var cuff = sample(.bloodPressureSystolic, 128, metadata: ["measurementStatus": "irregular pulse,body movement"])
        SampleScreening().screen(&cuff)
        #expect(!cuff.isQuarantined)
        #expect(SampleScreening.flags(of: QuantitySample(cuff)) == ["irregular pulse", "body movement"])
        var probe = sample(.oxygenSaturation, 97, metadata: ["deviceAndSensorStatus": "sensor disconnected"])
        SampleScreening().screen(&probe)
        #expect(probe.isQuarantined)
    }

    @Test func manualEntryUsesTheSameTable() {
        for type in QuantityType.allCases {
            #expect(PlausibilityTable.standard.range(for: type) != nil, "\(type) has no plausibility row")
        }
    }
}
