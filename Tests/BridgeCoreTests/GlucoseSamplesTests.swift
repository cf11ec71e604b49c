import BridgeCore
import BridgeFoundation
import Foundation
import GATTDecoding
import Testing

/// Decodes `bytes` with `T` and normalises it, received at a fixed instant, device times read in `zone`.
func samples<T: SampleProducing>(
    _: T.Type,
    _ bytes: [UInt8],
    zone: TimeZone = TimeZone(identifier: "Europe/Berlin")!,
    receivedAt: Date = Date(timeIntervalSince1970: 1_800_000_000)
) throws -> [QuantitySample] {
    let context = SampleContext(receivedAt: receivedAt, timeZone: zone, source: .device(T.self), payload: bytes)
    return try T.decode(bytes).samples(in: context).map { QuantitySample($0) }
}

/// `2024-03-15T07:30:00`-style wall time of `date` in Berlin.
func berlinTime(_ date: Date) -> String {
    Timestamp.format(date, in: TimeZone(identifier: "Europe/Berlin")!)
}

@Suite struct GlucoseSamplesTests {
    private let base: [UInt8] = [0xE8, 0x07, 0x03, 0x0F, 0x07, 0x1E, 0x00]  // 2024-03-15 07:30:00

    @Test func documentExampleIs95MilligramsPerDecilitreAtTheBaseTime() throws {
        // 02 05 00 E8 07 03 0F 07 1E 00 5F B0 12: 95 × 10⁻⁵ kg/L, capillary plasma, finger
        let result = try samples(GlucoseMeasurement.self, [0x02, 0x05, 0x00] + base + [0x5F, 0xB0, 0x12])
        let sample = try #require(result.first)
        #expect(result.count == 1)
        #expect(sample.type == .bloodGlucose)
        #expect(sample.value == 95)
        #expect(sample.unit == .milligramPerDecilitre)
        #expect(sample.transmittedValue == 0.00095)
        #expect(sample.transmittedUnit == .kilogramPerLitre)
        #expect(berlinTime(sample.start) == "2024-03-15T07:30:00+01:00")
        #expect(
            sample.metadata == [
                "sequenceNumber": "5", "baseTime": "2024-03-15T07:30:00", "sampleType": "capillary plasma",
                "sampleLocation": "finger", "resolution.bloodGlucose": "1e-5",
            ]
        )
    }

    @Test func kilogramsPerLitreConvertWithoutFloatArtefacts() throws {
        for mantissa in 1...2045 {
            let code = SFloat(mantissa: mantissa, exponent: -5).rawValue
            let payload = [0x02, 0x01, 0x00] + base + [UInt8(code & 0xFF), UInt8(code >> 8), 0x11]
            let sample = try #require(try samples(GlucoseMeasurement.self, payload).first)
            #expect(sample.value == Double(mantissa), "mantissa \(mantissa)")
        }
    }

    @Test func molesPerLitreGoThroughMillimolesAndTheMolarMass() throws {
        // flags 0x06 (mol/L); SFLOAT E = −4, M = 55 → 0.0055 mol/L = 5.5 mmol/L → 5.5 × 18.0156 mg/dL
        let sample = try #require(
            try samples(GlucoseMeasurement.self, [0x06, 0x01, 0x00] + base + [0x37, 0xC0, 0x11]).first
        )
        #expect(sample.value == 5.5 * 18.0156)
        #expect(sample.value == HealthUnit.millimolePerLitre.convert(5.5, to: .milligramPerDecilitre))
        #expect(abs(sample.value - 99.0858) < 1e-9)
        #expect(sample.transmittedValue == 0.0055)
        #expect(sample.transmittedUnit == .molePerLitre)
        // 7 mmol/L sent as 70 × 10⁻⁴ mol/L
        let seven = try #require(
            try samples(GlucoseMeasurement.self, [0x06, 0x01, 0x00] + base + [0x46, 0xC0, 0x11]).first
        )
        #expect(seven.value == 7 * 18.0156)
    }

    @Test func stampedWithTheUserFacingTimeAndBothTimesKept() throws {
        // flags 0x0B: offset −90 min, concentration, sensor status (battery low)
        let payload = [0x0B, 0x02, 0x01] + base + [0xA6, 0xFF, 0x78, 0xB0, 0x11, 0x01, 0x00]
        let sample = try #require(try samples(GlucoseMeasurement.self, payload).first)
        #expect(sample.value == 120)
        #expect(berlinTime(sample.start) == "2024-03-15T06:00:00+01:00")
        #expect(sample.deviceTime == DateTime(year: 2024, month: 3, day: 15, hours: 6, minutes: 0, seconds: 0))
        #expect(sample.metadata["baseTime"] == "2024-03-15T07:30:00")
        #expect(sample.metadata["timeOffsetMinutes"] == "-90")
        #expect(sample.metadata["sequenceNumber"] == "258")
        #expect(sample.metadata["sensorStatus"] == "device battery low")
        #expect(sample.metadata["sampleType"] == "capillary whole blood")
    }

    @Test func unknownBaseTimeUsesTheReceiveTime() throws {
        let received = Date(timeIntervalSince1970: 1_800_000_000)
        let sample = try #require(
            try samples(
                GlucoseMeasurement.self,
                [0x02, 0x01, 0x00, 0, 0, 0, 0, 0, 0, 0, 0x5F, 0xB0, 0x12],
                receivedAt: received
            ).first
        )
        #expect(sample.start == received)
        #expect(sample.deviceTime == nil)
        #expect(sample.metadata["baseTime"] == "unknown")
    }

    @Test(arguments: [UInt8(0x1A), 0x4A, 0x41, 0x4F])
    func controlSolutionGivesNoSample(typeSampleLocation: UInt8) throws {
        // type 10 (low nibble) or location 4 (high nibble)
        let payload = [0x02, 0x01, 0x00] + base + [0x5F, 0xB0, typeSampleLocation]
        #expect(try GlucoseMeasurement.decode(payload).fields["concentration"] == .double(0.00095))
        #expect(try samples(GlucoseMeasurement.self, payload).isEmpty)
    }

    /// NaN, NRes and reserved; ±INF are LO/HI readings (`OutOfRangeSamplesTests`).
    @Test(arguments: [UInt16(0x07FF), 0x0800, 0x0801])
    func specialValuesGiveNoSample(code: UInt16) throws {
        for flags: UInt8 in [0x02, 0x06] {
            let payload = [flags, 0x01, 0x00] + base + [UInt8(code & 0xFF), UInt8(code >> 8), 0x11]
            #expect(try samples(GlucoseMeasurement.self, payload).isEmpty)
        }
    }

    @Test func noConcentrationGivesNoSample() throws {
        #expect(try samples(GlucoseMeasurement.self, [0x19, 0x01, 0x00] + base + [0x00, 0x00, 0x00, 0x00]).isEmpty)
    }
}
