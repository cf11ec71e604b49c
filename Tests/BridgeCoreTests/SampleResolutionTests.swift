import BridgeCore
import Foundation
import GATTDecoding
import Testing

/// The transmitted resolution travels with the sample (a `resolution.<type>` metadata key) so exports present the
/// exact stored value at the precision the device sent: no 120.009852128 mmHg, no 72.57477920000001 kg, and an
/// "as sent" 0.0058 mol/L stays 0.0058.
@Suite struct SampleResolutionTests {
    func context(_ payload: [UInt8]) -> SampleContext {
        SampleContext(
            receivedAt: Date(timeIntervalSince1970: 1_800_000_000),
            timeZone: TimeZone(identifier: "UTC")!,
            source: SampleSource(kind: .device, decoder: "test"),
            payload: payload
        )
    }

    @Test(arguments: [(0.005, 3), (0.01, 2), (0.1, 1), (1e-1, 1), (0.75, 1), (0.0556, 2), (1, 0), (10, 0), (1e-5, 5)])
    func decimalsOfAStep(step: Double, decimals: Int) {
        #expect(SampleResolution.decimals(step: step) == decimals)
    }

    @Test func kilopascalsArePresentedAsTheCuffResolvedThem() throws {
        // Flags 01 (kPa): 16.0 / 10.7 / 12.5 kPa, SFLOAT exponent −1.
        let payload: [UInt8] = [0x01, 0xA0, 0xF0, 0x6B, 0xF0, 0x7D, 0xF0]
        let samples = try BloodPressureMeasurement.decode(payload).samples(in: context(payload)).map {
            QuantitySample($0)
        }
        let systolic = try #require(samples.first { $0.type == .bloodPressureSystolic })
        #expect(systolic.value != 120.0, "the stored value stays exact")
        #expect(systolic.metadata["resolution.bloodPressureSystolic"] == "1e-1")
        #expect(systolic.valueAtResolution == "120.0", "0.1 kPa is 0.75 mmHg: one decimal")
        #expect(systolic.transmittedValueAtResolution == "16.0")
    }

    @Test func poundsConvertToKilogramsAtTheScalesResolution() throws {
        // Flags 01 (imperial): 160.00 lb in 0.01 lb.
        let raw = UInt16(16_000)
        let payload: [UInt8] = [0x01, UInt8(raw & 0xFF), UInt8(raw >> 8)]
        let sample = QuantitySample(
            try #require(try WeightMeasurement.decode(payload).samples(in: context(payload)).first)
        )
        #expect(sample.value.description != "72.575")
        #expect(sample.valueAtResolution == "72.575")
        #expect(sample.transmittedValueAtResolution == "160.00")
    }

    @Test func glucoseInMolesPerLitreKeepsItsDigitsAsSent() throws {
        // Flags 06 (mol/L, type/location): seq 1, 2024-03-15 07:30, 58 × 10^-4 mol/L, capillary blood, finger.
        let payload: [UInt8] = [0x06, 0x01, 0x00, 0xE8, 0x07, 0x03, 0x0F, 0x07, 0x1E, 0x00, 0x3A, 0xC0, 0x11]
        let sample = QuantitySample(
            try #require(try GlucoseMeasurement.decode(payload).samples(in: context(payload)).first)
        )
        #expect(sample.metadata["resolution.bloodGlucose"] == "1e-4")
        #expect(sample.transmittedValueAtResolution == "0.0058", "not rounded to 0.01")
    }

    @Test func samplesWithoutAResolutionAreExportedExactly() {
        let sample = QuantitySample(
            type: .bodyMass,
            value: 72.57477920000001,
            unit: .kilogram,
            start: Date(timeIntervalSince1970: 0),
            source: SampleSource(kind: .manual)
        )
        #expect(sample.valueAtResolution == nil)
        #expect(sample.transmittedValueAtResolution == nil)
    }
}
