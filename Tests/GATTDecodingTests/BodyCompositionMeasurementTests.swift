import BridgeFoundation
import GATTDecoding
import Testing

@Suite struct BodyCompositionMeasurementTests {
    /// Flags 0x0FFE: SI, every optional field.
    static let allFields: [UInt8] = [
        0xFE, 0x0F,  // flags 0x0FFE: SI, bits 1–11 (every optional field), single packet
        0xE0, 0x00,  // body fat 224 × 0.1 % = 22.4 %
        0xE8, 0x07, 0x03, 0x0F, 0x07, 0x1E, 0x00,  // time stamp 2024-03-15 07:30:00
        0x02,  // user 2
        0x70, 0x17,  // basal metabolism 6000 kJ
        0xC2, 0x01,  // muscle percentage 450 × 0.1 % = 45.0 %
        0xA0, 0x1D,  // muscle mass 7584 × 0.005 kg = 37.92 kg
        0x20, 0x2A,  // fat free mass 10784 × 0.005 kg = 53.92 kg
        0x40, 0x1F,  // soft lean mass 8000 × 0.005 kg = 40.0 kg
        0x00, 0x19,  // body water mass 6400 × 0.005 kg = 32.0 kg
        0x88, 0x13,  // impedance 5000 × 0.1 Ω = 500.0 Ω
        0xB0, 0x36,  // weight 14000 × 0.005 kg = 70.0 kg
        0xD0, 0x06,  // height 1744 × 0.001 m = 1.744 m
    ]

    @Test func decodesTheReferenceExample() throws {
        // 00 06: flags 0x0600 (impedance, weight); E0 00: 22.4 %; 88 13: 500.0 Ω; B0 36: 70.0 kg
        let value = try BodyCompositionMeasurement.decode([0x00, 0x06, 0xE0, 0x00, 0x88, 0x13, 0xB0, 0x36])
        #expect(value.flags == 0x0600)
        #expect(value.bodyFatPercentage == 22.4)
        #expect(value.impedance == 500.0)
        #expect(value.weight == 70.0)
        #expect(value.massUnit == "kg")
        #expect(value.timeStamp == nil && value.userID == nil && value.height == nil && value.muscleMass == nil)
        #expect(!value.isMultiplePacket)
        #expect(!value.isUnsuccessful)
        #expect(
            value.fields.keys == [
                "flags", "units", "multiplePacket", "bodyFatPercentage", "impedance", "impedanceUnit", "weight",
                "massUnit",
            ]
        )
    }

    @Test func decodesEveryFieldInSIUnits() throws {
        let value = try BodyCompositionMeasurement.decode(Self.allFields)
        #expect(!value.isImperial)
        #expect(value.bodyFatPercentage == 22.4)
        #expect(value.timeStamp == DateTime(year: 2024, month: 3, day: 15, hours: 7, minutes: 30, seconds: 0))
        #expect(value.userID == 2)
        #expect(value.basalMetabolism == 6000)
        #expect(value.musclePercentage == 45.0)
        #expect(value.muscleMass == 37.92)
        #expect(value.fatFreeMass == 53.92)
        #expect(value.softLeanMass == 40.0)
        #expect(value.bodyWaterMass == 32.0)
        #expect(value.impedance == 500.0)
        #expect(value.weight == 70.0)
        #expect(value.height == 1.744)
        #expect(value.heightUnit == "m")
        #expect(
            value.fields.keys == [
                "flags", "units", "multiplePacket", "bodyFatPercentage", "timeStamp", "userID", "basalMetabolism",
                "basalMetabolismUnit", "musclePercentage", "muscleMass", "massUnit", "fatFreeMass", "softLeanMass",
                "bodyWaterMass", "impedance", "impedanceUnit", "weight", "height", "heightUnit",
            ]
        )
        #expect(value.fields["timeStamp"] == .string("2024-03-15T07:30:00"))
        #expect(value.fields["muscleMass"] == .double(37.92))
    }

    @Test func decodesImperialMassAndHeight() throws {
        let payload: [UInt8] = [
            0x21, 0x0C,  // flags 0x0C21: imperial, muscle mass, weight, height
            0x2C, 0x01,  // body fat 300 × 0.1 % = 30.0 %
            0x10, 0x27,  // muscle mass 10000 × 0.01 lb = 100.0 lb
            0x80, 0x3E,  // weight 16000 × 0.01 lb = 160.0 lb
            0xAF, 0x02,  // height 687 × 0.1 in = 68.7 in
        ]
        let value = try BodyCompositionMeasurement.decode(payload)
        #expect(value.isImperial)
        #expect(value.bodyFatPercentage == 30.0)
        #expect(value.muscleMass == 100.0)
        #expect(value.weight == 160.0)
        #expect(value.height == 68.7)
        #expect(value.massUnit == "lb")
        #expect(value.heightUnit == "in")
        #expect(value.fields["units"] == .string("imperial"))
        #expect(value.fields["heightUnit"] == .string("in"))
    }

    /// Each optional field (flag bits 1–11) with a distinct raw value, in spec order.
    private static let optionalFields: [(bit: Int, bytes: [UInt8])] = [
        (1, [0xE8, 0x07, 0x03, 0x0F, 0x07, 0x1E, 0x00]), (2, [0x07]), (3, [0x03, 0x00]), (4, [0x04, 0x00]),
        (5, [0x05, 0x00]), (6, [0x06, 0x00]), (7, [0x07, 0x00]), (8, [0x08, 0x00]), (9, [0x09, 0x00]),
        (10, [0x0A, 0x00]), (11, [0x0B, 0x00]),
    ]

    @Test func decodesEveryFlagCombination() throws {
        for combination in 0..<(1 << 12) {
            let flags = UInt16(combination) & 0x0FFF  // bit 0 units, bits 1–11 fields
            var payload: [UInt8] = [UInt8(flags & 0xFF), UInt8(flags >> 8), 0xC8, 0x00]  // body fat 20.0 %
            for field in Self.optionalFields where flags & (1 << field.bit) != 0 { payload += field.bytes }
            let value = try BodyCompositionMeasurement.decode(payload)
            let present: [Bool] = [
                value.timeStamp != nil, value.userID != nil, value.basalMetabolism != nil,
                value.rawMusclePercentage != nil, value.rawMuscleMass != nil, value.rawFatFreeMass != nil,
                value.rawSoftLeanMass != nil, value.rawBodyWaterMass != nil, value.rawImpedance != nil,
                value.rawWeight != nil, value.rawHeight != nil,
            ]
            for (index, isPresent) in present.enumerated() {
                #expect(isPresent == (flags & (1 << (index + 1)) != 0), "flags \(flags) bit \(index + 1)")
            }
            // each present field got its own bytes (no field read another's)
            let raws = [
                value.basalMetabolism, value.rawMusclePercentage, value.rawMuscleMass, value.rawFatFreeMass,
                value.rawSoftLeanMass, value.rawBodyWaterMass, value.rawImpedance, value.rawWeight, value.rawHeight,
            ]
            for (index, raw) in raws.enumerated() where raw != nil {
                #expect(raw == UInt16(index + 3))
            }
            if flags & 0x04 != 0 { #expect(value.userID == 7) }
            #expect(value.bodyFatPercentage == 20.0)
            #expect(value.isImperial == (flags & 1 != 0))
        }
    }

    @Test func rejectsEveryTruncatedPrefix() {
        for length in 0..<Self.allFields.count {
            #expect(throws: GATTDecodingError.self) {
                try BodyCompositionMeasurement.decode(Array(Self.allFields.prefix(length)))
            }
        }
    }

    @Test func truncationErrorNamesTheField() {
        // flags 0x0200 (impedance) but the impedance has only one byte
        #expect(
            throws: GATTDecodingError(
                context: "Body Composition Measurement (2A9C)",
                offset: 4,
                reason: .insufficientBytes(field: "Impedance", expected: 2, available: 1)
            )
        ) {
            try BodyCompositionMeasurement.decode([0x00, 0x02, 0xE0, 0x00, 0x88])
        }
    }

    @Test func unsuccessfulMeasurementHasNoBodyFat() throws {
        // flags 0x0006: time stamp, user ID; body fat 0xFFFF
        let value = try BodyCompositionMeasurement.decode([
            0x06, 0x00, 0xFF, 0xFF, 0xE8, 0x07, 0x03, 0x0F, 0x07, 0x1E, 0x00, 0xFF,
        ])
        #expect(value.isUnsuccessful)
        #expect(value.bodyFatPercentage == nil)
        #expect(value.fields["bodyFatPercentage"] == .string("unsuccessful"))
        #expect(value.fields["userID"] == .string("unknown"))
        #expect(value.timeStamp != nil)
    }

    @Test func exposesTheMultiplePacketFlag() throws {
        let value = try BodyCompositionMeasurement.decode([0x00, 0x14, 0xE0, 0x00, 0xB0, 0x36])  // 0x1400
        #expect(value.isMultiplePacket)
        #expect(value.weight == 70.0)
        #expect(value.fields["multiplePacket"] == .bool(true))
        #expect(value.reservedFlags == 0)
    }

    @Test func mergesTheTwoPacketsOfAMultiplePacketMeasurement() throws {
        let first = try BodyCompositionMeasurement.decode([
            0x06, 0x12,  // flags 0x1206: time stamp, user, impedance, multiple packet
            0xE0, 0x00,  // 22.4 %
            0xE8, 0x07, 0x03, 0x0F, 0x07, 0x1E, 0x00,  // 2024-03-15 07:30:00
            0x03,  // user 3
            0x88, 0x13,  // 500.0 Ω
        ])
        let second = try BodyCompositionMeasurement.decode([
            0x00, 0x1C,  // flags 0x1C00: weight, height, multiple packet
            0xE0, 0x00,  // 22.4 % again
            0xB0, 0x36,  // 70.0 kg
            0xD0, 0x06,  // 1.744 m
        ])
        let merged = try #require(first.merged(with: second))
        #expect(!merged.isMultiplePacket)
        #expect(merged.flags == 0x0E06)
        #expect(merged.userID == 3)
        #expect(merged.timeStamp == first.timeStamp)
        #expect(merged.impedance == 500.0)
        #expect(merged.weight == 70.0)
        #expect(merged.height == 1.744)
        #expect(merged.bodyFatPercentage == 22.4)
        // packets in different units cannot be joined
        let imperial = try BodyCompositionMeasurement.decode([0x01, 0x1C, 0xE0, 0x00, 0x80, 0x3E, 0xAF, 0x02])
        #expect(first.merged(with: imperial) == nil)
    }

    @Test func ignoresReservedFlagBitsAndTrailingBytes() throws {
        let value = try BodyCompositionMeasurement.decode([0x00, 0xE4, 0xE0, 0x00, 0xB0, 0x36, 0xAA])
        #expect(value.reservedFlags == 0xE000)
        #expect(value.weight == 70.0)
        #expect(value.bodyFatPercentage == 22.4)
        #expect(value.fields["reservedFlags"] == .int(0xE000))
    }

    @Test func isInTheCatalogue() {
        #expect(DecoderCatalog.decoder(forCharacteristic: BluetoothUUID(0x2A9C)) == BodyCompositionMeasurement.self)
    }
}
