import BridgeFoundation
import GATTDecoding
import Testing

@Suite struct BloodPressureMeasurementTests {
    /// Flags 0x1E with every field, mmHg.
    static let allFields: [UInt8] = [
        0x1E,  // flags: mmHg, Time Stamp, Pulse Rate, User ID, Measurement Status
        0x82, 0x00,  // systolic 130 mmHg
        0x55, 0x00,  // diastolic 85 mmHg
        0x64, 0x00,  // MAP 100 mmHg
        0xE8, 0x07, 0x03, 0x0F, 0x07, 0x1E, 0x00,  // 2024-03-15 07:30:00
        0xDC, 0xF2,  // pulse rate M = 732, E = −1 → 73.2 bpm
        0x01,  // user 1
        0x05, 0x00,  // status 0x0005: body movement, irregular pulse
    ]

    @Test func decodesTheReferenceExample() throws {
        // 04: mmHg, pulse rate present; 78 00: 120; 50 00: 80; 5D 00: 93; 40 00: 64 bpm
        let value = try BloodPressureMeasurement.decode([0x04, 0x78, 0x00, 0x50, 0x00, 0x5D, 0x00, 0x40, 0x00])
        #expect(value.systolic.doubleValue == 120)
        #expect(value.diastolic.doubleValue == 80)
        #expect(value.meanArterialPressure.doubleValue == 93)
        #expect(value.pulseRate?.doubleValue == 64)
        #expect(value.pressureUnit == "mmHg")
        #expect(value.timeStamp == nil && value.userID == nil && value.measurementStatus == nil)
        #expect(
            value.fields == [
                "flags": .int(4), "systolic": .double(120), "diastolic": .double(80),
                "meanArterialPressure": .double(93),
                "pressureUnit": .string("mmHg"), "pulseRate": .double(64), "pulseRateUnit": .string("bpm"),
            ]
        )
    }

    @Test func decodesEveryField() throws {
        let value = try BloodPressureMeasurement.decode(Self.allFields)
        #expect(!value.isKilopascal)
        #expect(value.systolic.doubleValue == 130)
        #expect(value.diastolic.doubleValue == 85)
        #expect(value.meanArterialPressure.doubleValue == 100)
        #expect(value.timeStamp == DateTime(year: 2024, month: 3, day: 15, hours: 7, minutes: 30, seconds: 0))
        #expect(value.pulseRate?.doubleValue == 73.2)
        #expect(value.userID == 1)
        let status = try #require(value.measurementStatus)
        #expect(status.bodyMovement && status.irregularPulse && !status.cuffTooLoose && !status.improperPosition)
        #expect(status.pulseRateRange == .withinRange)
        #expect(
            value.fields.keys == [
                "flags", "systolic", "diastolic", "meanArterialPressure", "pressureUnit", "timeStamp", "pulseRate",
                "pulseRateUnit", "userID", "measurementStatus",
            ]
        )
        #expect(
            value.fields["measurementStatus"]
                == .object([
                    "value": .int(5), "bodyMovement": .bool(true), "cuffTooLoose": .bool(false),
                    "irregularPulse": .bool(true), "pulseRateRange": .string("withinRange"),
                    "improperPosition": .bool(false),
                ])
        )
    }

    @Test func decodesKilopascal() throws {
        // 01: kPa; A0 F0: 160 × 10⁻¹ = 16.0; 6A F0: 10.6; FF 07: MAP NaN
        let value = try BloodPressureMeasurement.decode([0x01, 0xA0, 0xF0, 0x6A, 0xF0, 0xFF, 0x07])
        #expect(value.isKilopascal)
        #expect(value.pressureUnit == "kPa")
        #expect(value.systolic.doubleValue == 16.0)
        #expect(value.diastolic.doubleValue == 10.6)
        #expect(value.meanArterialPressure.special == .nan)
        #expect(value.fields["meanArterialPressure"] == .string("NaN"))
    }

    @Test(arguments: 0..<32)
    func decodesEveryFlagCombination(flags: Int) throws {
        var payload: [UInt8] = [UInt8(flags), 0x78, 0x00, 0x50, 0x00, 0x5D, 0x00]
        if flags & 0x02 != 0 { payload += [0xE8, 0x07, 0x03, 0x0F, 0x07, 0x1E, 0x00] }
        if flags & 0x04 != 0 { payload += [0x40, 0x00] }
        if flags & 0x08 != 0 { payload += [0xFF] }
        if flags & 0x10 != 0 { payload += [0x20, 0x00] }  // improper position
        let value = try BloodPressureMeasurement.decode(payload)
        #expect(value.isKilopascal == (flags & 1 != 0))
        #expect((value.timeStamp != nil) == (flags & 0x02 != 0))
        #expect(value.pulseRate?.doubleValue == (flags & 0x04 != 0 ? 64 : nil))
        #expect(value.userID == (flags & 0x08 != 0 ? 0xFF : nil))
        #expect(value.measurementStatus?.improperPosition == (flags & 0x10 != 0 ? true : nil))
        #expect(value.systolic.doubleValue == 120)
        if flags & 0x08 != 0 { #expect(value.fields["userID"] == .string("unknown")) }
    }

    @Test func rejectsEveryTruncatedPrefix() {
        for length in 0..<Self.allFields.count {
            #expect(throws: GATTDecodingError.self) {
                try BloodPressureMeasurement.decode(Array(Self.allFields.prefix(length)))
            }
        }
    }

    @Test func truncationErrorNamesTheField() {
        #expect(
            throws: GATTDecodingError(
                context: "Blood Pressure Measurement (2A35)",
                offset: 7,
                reason: .insufficientBytes(field: "Pulse Rate", expected: 2, available: 1)
            )
        ) {
            try BloodPressureMeasurement.decode([0x04, 0x78, 0x00, 0x50, 0x00, 0x5D, 0x00, 0x40])
        }
    }

    @Test(arguments: IEEE11073Special.allCases)
    func showsSpecialValuesByName(special: IEEE11073Special) throws {
        let code: UInt16 =
            switch special {
            case .nan: 0x07FF
            case .nres: 0x0800
            case .positiveInfinity: 0x07FE
            case .negativeInfinity: 0x0802
            case .reserved: 0x0801
            }
        let low = UInt8(code & 0xFF)
        let high = UInt8(code >> 8)
        let value = try BloodPressureMeasurement.decode([0x04, low, high, low, high, low, high, low, high])
        for pressure in [value.systolic, value.diastolic, value.meanArterialPressure, value.pulseRate] {
            #expect(pressure?.special == special)
        }
        for key in ["systolic", "diastolic", "meanArterialPressure", "pulseRate"] {
            #expect(value.fields[key] == .string(special.rawValue))
        }
    }

    @Test(arguments: 0..<6)
    func namesEachStatusBit(bit: Int) throws {
        let raw = UInt16(1) << bit
        let value = try BloodPressureMeasurement.decode([0x10, 0x78, 0x00, 0x50, 0x00, 0x5D, 0x00, UInt8(raw), 0x00])
        let status = try #require(value.measurementStatus)
        #expect(status.bodyMovement == (bit == 0))
        #expect(status.cuffTooLoose == (bit == 1))
        #expect(status.irregularPulse == (bit == 2))
        #expect(status.pulseRateRange == (bit == 3 ? .aboveUpperLimit : bit == 4 ? .belowLowerLimit : .withinRange))
        #expect(status.improperPosition == (bit == 5))
        let names = [
            "bodyMovement", "cuffTooLoose", "irregularPulse", "pulseRateAboveUpperLimit", "pulseRateBelowLowerLimit",
            "improperPosition",
        ]
        #expect(status.conditions == [names[bit]])
    }

    @Test func readsThePulseRateRangeAsTwoBits() {
        #expect(BloodPressureMeasurementStatus(rawValue: 0x0000).pulseRateRange == .withinRange)
        #expect(BloodPressureMeasurementStatus(rawValue: 0x0008).pulseRateRange == .aboveUpperLimit)
        #expect(BloodPressureMeasurementStatus(rawValue: 0x0010).pulseRateRange == .belowLowerLimit)
        #expect(BloodPressureMeasurementStatus(rawValue: 0x0018).pulseRateRange == .reserved)
        #expect(BloodPressureMeasurementStatus(rawValue: 0x0018).conditions == ["pulseRateRangeReserved"])
        #expect(BloodPressureMeasurementStatus(rawValue: 0).conditions.isEmpty)
    }

    @Test func ignoresReservedFlagAndStatusBits() throws {
        let value = try BloodPressureMeasurement.decode([0xF0, 0x78, 0x00, 0x50, 0x00, 0x5D, 0x00, 0xC0, 0xFF, 0xAA])
        #expect(value.reservedFlags == 0xE0)
        #expect(value.systolic.doubleValue == 120)
        let status = try #require(value.measurementStatus)
        #expect(status.reservedBits == 0xFFC0)
        #expect(status.conditions.isEmpty)
        #expect(value.fields["reservedFlags"] == .int(0xE0))
        #expect(
            value.fields["measurementStatus"].flatMap { if case .object(let o) = $0 { o["reservedBits"] } else { nil } }
                == .int(0xFFC0)
        )
    }

    @Test func isInTheCatalogue() {
        #expect(DecoderCatalog.decoder(forCharacteristic: BluetoothUUID(0x2A35)) == BloodPressureMeasurement.self)
    }
}

@Suite struct IntermediateCuffPressureTests {
    @Test func readsTheCuffPressureFromTheSystolicField() throws {
        // 1E: mmHg, time stamp, pulse, user, status; 8C 00: cuff 140 mmHg; FF 07 ×2: unused (NaN)
        let payload: [UInt8] = [
            0x1E, 0x8C, 0x00, 0xFF, 0x07, 0xFF, 0x07, 0xE8, 0x07, 0x03, 0x0F, 0x07, 0x1E, 0x00, 0x40, 0x00, 0x02, 0x00,
            0x00,
        ]
        let value = try IntermediateCuffPressure.decode(payload)
        #expect(value.cuffPressure.doubleValue == 140)
        #expect(value.unusedDiastolic.special == .nan)
        #expect(value.pulseRate?.doubleValue == 64)
        #expect(value.userID == 2)
        #expect(value.measurementStatus?.rawValue == 0)
        #expect(
            value.fields.keys == [
                "flags", "cuffPressure", "diastolicUnused", "meanArterialPressureUnused", "pressureUnit", "timeStamp",
                "pulseRate", "pulseRateUnit", "userID", "measurementStatus",
            ]
        )
        #expect(value.fields["cuffPressure"] == .double(140))
        for length in 0..<payload.count {
            #expect(throws: GATTDecodingError.self) {
                try IntermediateCuffPressure.decode(Array(payload.prefix(length)))
            }
        }
    }

    @Test(arguments: 0..<32)
    func decodesEveryFlagCombination(flags: Int) throws {
        var payload: [UInt8] = [UInt8(flags), 0x0A, 0x00, 0x00, 0x00, 0x00, 0x00]  // 10, 0, 0 (devices send 0)
        if flags & 0x02 != 0 { payload += [0xE8, 0x07, 0x03, 0x0F, 0x07, 0x1E, 0x00] }
        if flags & 0x04 != 0 { payload += [0x40, 0x00] }
        if flags & 0x08 != 0 { payload += [0x04] }
        if flags & 0x10 != 0 { payload += [0x02, 0x00] }
        let value = try IntermediateCuffPressure.decode(payload)
        #expect(value.cuffPressure.doubleValue == 10)
        #expect(value.pressureUnit == (flags & 1 != 0 ? "kPa" : "mmHg"))
        #expect((value.timeStamp != nil) == (flags & 0x02 != 0))
        #expect((value.pulseRate != nil) == (flags & 0x04 != 0))
        #expect(value.userID == (flags & 0x08 != 0 ? 4 : nil))
        #expect(value.measurementStatus?.cuffTooLoose == (flags & 0x10 != 0 ? true : nil))
    }

    @Test func errorsNameTheCuffPressureField() {
        #expect(
            throws: GATTDecodingError(
                context: "Intermediate Cuff Pressure (2A36)",
                offset: 1,
                reason: .insufficientBytes(field: "Current Cuff Pressure", expected: 2, available: 1)
            )
        ) {
            try IntermediateCuffPressure.decode([0x00, 0x8C])
        }
    }

    @Test func isItsOwnDecoder() {
        #expect(IntermediateCuffPressure.identifier == "intermediate-cuff-pressure")
        #expect(DecoderCatalog.decoder(forCharacteristic: BluetoothUUID(0x2A36)) == IntermediateCuffPressure.self)
    }
}

@Suite struct BloodPressureFeatureTests {
    @Test(arguments: 0..<9)
    func decodesEachFeatureBit(bit: Int) throws {
        let raw = UInt16(1) << bit
        let value = try BloodPressureFeature.decode([UInt8(raw & 0xFF), UInt8(raw >> 8)])
        let supported = [
            value.bodyMovementDetectionSupported, value.cuffFitDetectionSupported,
            value.irregularPulseDetectionSupported, value.pulseRateRangeDetectionSupported,
            value.measurementPositionDetectionSupported, value.multipleBondsSupported, value.e2eCRCSupported,
            value.userDataServiceSupported, value.userFacingTimeSupported,
        ]
        #expect(supported.enumerated().allSatisfy { $0.element == ($0.offset == bit) })
        let keys = value.fields.keys.filter { $0.hasSuffix("Supported") }
        #expect(keys.count == 9)
        #expect(value.fields[keys[bit]] == .bool(true))
        #expect(value.reservedBits == 0)
    }

    @Test func ignoresReservedBitsButShowsThem() throws {
        let value = try BloodPressureFeature.decode([0x05, 0xFE])  // body movement, irregular pulse + bits 9–15
        #expect(value.bodyMovementDetectionSupported && value.irregularPulseDetectionSupported)
        #expect(!value.cuffFitDetectionSupported)
        #expect(value.reservedBits == 0xFE00)
        #expect(value.fields["reservedBits"] == .int(0xFE00))
    }

    @Test func rejectsEveryTruncatedPrefix() {
        #expect(throws: GATTDecodingError.self) { try BloodPressureFeature.decode([]) }
        #expect(throws: GATTDecodingError.self) { try BloodPressureFeature.decode([0x05]) }
    }

    @Test func isInTheCatalogue() {
        #expect(DecoderCatalog.decoder(forCharacteristic: BluetoothUUID(0x2A49)) == BloodPressureFeature.self)
    }
}
