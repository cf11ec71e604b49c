import BridgeFoundation
import GATTDecoding
import Testing

@Suite struct WeightMeasurementTests {
    /// Flags 0x0E (SI, time stamp, user, BMI+height) with every field.
    private let allFields: [UInt8] = [
        0x0E,  // flags: SI, Time Stamp, User ID, BMI and Height
        0xA4, 0x38,  // weight 14500 × 0.005 kg = 72.5 kg
        0xE8, 0x07, 0x03, 0x0F, 0x07, 0x1E, 0x00,  // 2024-03-15 07:30:00
        0x05,  // user 5
        0x18, 0x01,  // BMI 280 × 0.1 = 28.0
        0xD0, 0x06,  // height 1744 × 0.001 m = 1.744 m
    ]

    @Test func decodesEveryFieldInSIUnits() throws {
        let value = try WeightMeasurement.decode(allFields)
        #expect(value.weight == 72.5)
        #expect(value.weightUnit == "kg")
        #expect(value.timeStamp == DateTime(year: 2024, month: 3, day: 15, hours: 7, minutes: 30, seconds: 0))
        #expect(value.userID == 5)
        #expect(value.bmi == 28.0)
        #expect(value.height == 1.744)
    }

    @Test func decodesImperialWeightAndHeight() throws {
        // flags 0x09: imperial, BMI+height; 16000 × 0.01 lb = 160 lb; BMI 24.3; height 687 × 0.1 in = 68.7 in
        let value = try WeightMeasurement.decode([0x09, 0x80, 0x3E, 0xF3, 0x00, 0xAF, 0x02])
        #expect(value.weight == 160.0)
        #expect(value.weightUnit == "lb")
        #expect(value.bmi == 24.3)
        #expect(value.height == 68.7)
        #expect(value.heightUnit == "in")
    }

    @Test(arguments: 0..<16)
    func decodesEveryFlagCombination(flags: Int) throws {
        var payload: [UInt8] = [UInt8(flags), 0x10, 0x27]
        if flags & 0x02 != 0 { payload += [0xE8, 0x07, 0x03, 0x0F, 0x07, 0x1E, 0x00] }
        if flags & 0x04 != 0 { payload += [0xFF] }
        if flags & 0x08 != 0 { payload += [0x18, 0x01, 0xD0, 0x06] }
        let value = try WeightMeasurement.decode(payload)
        #expect((value.timeStamp != nil) == (flags & 0x02 != 0))
        #expect((value.userID != nil) == (flags & 0x04 != 0))
        #expect((value.bmi != nil) == (flags & 0x08 != 0))
        #expect(value.weight == (flags & 1 == 0 ? 50.0 : 100.0))
    }

    @Test func rejectsEveryTruncatedPrefix() {
        for length in 0..<allFields.count {
            #expect(throws: GATTDecodingError.self) { try WeightMeasurement.decode(Array(allFields.prefix(length))) }
        }
    }

    @Test func truncationErrorNamesCharacteristicOffsetAndField() {
        #expect(
            throws: GATTDecodingError(
                context: "Weight Measurement (2A9D)",
                offset: 3,
                reason: .insufficientBytes(field: "Date Time", expected: 7, available: 2)
            )
        ) {
            try WeightMeasurement.decode([0x02, 0x10, 0x27, 0xE8, 0x07])
        }
    }

    @Test func unsuccessfulMeasurementHasNoWeight() throws {
        let value = try WeightMeasurement.decode([0x04, 0xFF, 0xFF, 0xFF])
        #expect(value.isUnsuccessful)
        #expect(value.weight == nil)
        #expect(value.fields["weight"] == .string("unsuccessful"))
        #expect(value.fields["userID"] == .string("unknown"))
    }

    @Test func ignoresReservedFlagBitsAndTrailingBytes() throws {
        let value = try WeightMeasurement.decode([0xF0, 0x10, 0x27, 0xAA])
        #expect(value.weight == 50.0)
        #expect(value.reservedFlags == 0xF0)
    }

    @Test func rejectsImpossibleMonth() {
        #expect(throws: GATTDecodingError.self) {
            try WeightMeasurement.decode([0x02, 0x10, 0x27, 0xE8, 0x07, 0x0D, 0x0F, 0x07, 0x1E, 0x00])
        }
    }
}
