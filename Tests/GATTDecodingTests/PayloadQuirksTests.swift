import GATTDecoding
import Testing

/// Vendor quirk overlays put a device's bytes back into the standard layout (`gatt-reference.md` §8.1, §9.1).
@Suite struct PayloadQuirksTests {
    static let beurer = PayloadQuirks(
        bigEndian: ["pulseRate", "measurementStatus"],
        userIDAlwaysPresent: true,
        zeroMeansAbsent: ["meanArterialPressure"]
    )

    /// Flags 14 (pulse, status; user-ID bit clear) | 128 / 82 / MAP 0 mmHg | pulse 00 48 (72, big-endian) | user 01 |
    /// status 00 04 (irregular pulse, big-endian): what a Beurer BM85 sends.
    static let bm85: [UInt8] = [0x14, 0x80, 0x00, 0x52, 0x00, 0x00, 0x00, 0x00, 0x48, 0x01, 0x00, 0x04]

    @Test func theStandardDecoderMisreadsTheBeurerLayout() throws {
        let plain = try BloodPressureMeasurement.decode(Self.bm85)
        #expect(plain.pulseRate?.doubleValue == -20_480_000)
        #expect(plain.userID == nil)
        #expect(plain.meanArterialPressure.doubleValue == 0)
    }

    @Test func theBeurerOverlayGivesTheReadingTheCuffShowed() throws {
        let standard = BloodPressureMeasurement.standardised(Self.bm85, undoing: Self.beurer)
        #expect(standard == [0x1C, 0x80, 0x00, 0x52, 0x00, 0xFF, 0x07, 0x48, 0x00, 0x01, 0x04, 0x00])
        let decoded = try BloodPressureMeasurement.decode(standard)
        #expect(decoded.systolic.doubleValue == 128)
        #expect(decoded.diastolic.doubleValue == 82)
        #expect(decoded.meanArterialPressure.special == .nan)
        #expect(decoded.pulseRate?.doubleValue == 72)
        #expect(decoded.userID == 1)
        #expect(decoded.measurementStatus?.irregularPulse == true)
        #expect(decoded.measurementStatus?.reservedBits == 0)
    }

    @Test func theOverlayFollowsTheTimeStampAndLeavesAbsentFieldsAlone() throws {
        // Flags 16: time stamp, pulse, status; 2024-03-15 07:30:00; pulse 00 48; user 02; status 00 01.
        let withTime: [UInt8] =
            [0x16, 0x80, 0x00, 0x52, 0x00, 0x60, 0x00] + [0xE8, 0x07, 0x03, 0x0F, 0x07, 0x1E, 0x00]
            + [0x00, 0x48, 0x02, 0x00, 0x01]
        let decoded = try BloodPressureMeasurement.decode(
            BloodPressureMeasurement.standardised(withTime, undoing: Self.beurer)
        )
        #expect(decoded.pulseRate?.doubleValue == 72)
        #expect(decoded.meanArterialPressure.doubleValue == 96)  // not zero: kept
        #expect(decoded.userID == 2)
        #expect(decoded.measurementStatus?.bodyMovement == true)
        // No pulse, no status: only the user ID byte is announced.
        let bare: [UInt8] = [0x00, 0x80, 0x00, 0x52, 0x00, 0x60, 0x00, 0x03]
        #expect(
            try BloodPressureMeasurement.decode(BloodPressureMeasurement.standardised(bare, undoing: Self.beurer))
                .userID == 3
        )
        // Too short: unchanged, and the decoder says where it ends.
        #expect(BloodPressureMeasurement.standardised([0x14, 0x80], undoing: Self.beurer) == [0x1C, 0x80])
    }

    @Test func ignoreTimeOffsetReadsTheGlucoseOffsetAsZero() throws {
        // Flags 03: time offset, concentration; seq 1; 2024-03-15 07:30:00; offset -90 min; 95 mg/dL; type 0x12.
        let payload: [UInt8] = [
            0x03, 0x01, 0x00, 0xE8, 0x07, 0x03, 0x0F, 0x07, 0x1E, 0x00, 0xA6, 0xFF, 0x5F, 0xB0, 0x12,
        ]
        let quirk = PayloadQuirks(ignoreTimeOffset: true)
        let decoded = try GlucoseMeasurement.decode(GlucoseMeasurement.standardised(payload, undoing: quirk))
        #expect(decoded.userFacingTime == DateTime(year: 2024, month: 3, day: 15, hours: 7, minutes: 30, seconds: 0))
        #expect(try GlucoseMeasurement.decode(payload).timeOffset == -90)
    }

    @Test func aQuirkTheDecoderDoesNotHaveIsAProblem() {
        #expect(Self.beurer.problem(for: BloodPressureMeasurement.self) == nil)
        #expect(PayloadQuirks(bigEndian: ["heartRate"]).problem(for: HeartRateMeasurement.self) != nil)
        #expect(PayloadQuirks(bigEndian: ["systolic"]).problem(for: BloodPressureMeasurement.self) != nil)
        #expect(PayloadQuirks(ignoreTimeOffset: true).problem(for: WeightMeasurement.self) != nil)
        #expect(PayloadQuirks(userIDAlwaysPresent: true).problem(for: GlucoseMeasurement.self) != nil)
    }
}
