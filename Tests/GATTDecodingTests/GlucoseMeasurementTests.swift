import BridgeFoundation
import GATTDecoding
import Testing

@Suite struct GlucoseMeasurementTests {
    /// Flags 0x1B: time offset, concentration + type/location (kg/L), sensor status, context follows.
    private let allFields: [UInt8] = [
        0x1B,  // flags: bit 0 offset, bit 1 concentration, bit 3 status, bit 4 context follows
        0x02, 0x01,  // sequence number 0x0102 = 258
        0xE8, 0x07, 0x03, 0x0F, 0x07, 0x1E, 0x00,  // base time 2024-03-15 07:30:00
        0xA6, 0xFF,  // time offset −90 min → user-facing 06:00:00
        0x78, 0xB0,  // SFLOAT E = −5, M = 120 → 0.0012 kg/L (120 mg/dL)
        0x11,  // type 1 capillary whole blood (low nibble), location 1 finger (high nibble)
        0x21, 0x00,  // sensor status: bit 0 battery low, bit 5 result too high
    ]

    @Test func decodesTheDocumentExample() throws {
        // 02 05 00 E8 07 03 0F 07 1E 00 5F B0 12 → seq 5, 95 × 10⁻⁵ kg/L, type 2 capillary plasma, location 1 finger
        let value = try GlucoseMeasurement.decode(hex("02 05 00 E8 07 03 0F 07 1E 00 5F B0 12"))
        #expect(value.sequenceNumber == 5)
        #expect(value.baseTime == .example)
        #expect(value.userFacingTime == .example)
        #expect(value.timeOffset == nil)
        #expect(value.concentration?.doubleValue == 0.00095)
        #expect(value.concentrationUnit == "kg/L")
        #expect(value.sampleType == 2)
        #expect(value.sampleTypeName == "capillary plasma")
        #expect(value.sampleLocation == 1)
        #expect(value.sampleLocationName == "finger")
        #expect(value.sensorStatus == nil)
        #expect(!value.contextFollows)
        #expect(
            value.fields.keys == [
                "flags", "sequenceNumber", "baseTime", "userFacingTime", "concentration", "concentrationUnit", "type",
                "typeName", "sampleLocation", "sampleLocationName", "contextFollows",
            ]
        )
    }

    @Test func decodesEveryFieldWithANegativeTimeOffset() throws {
        let value = try GlucoseMeasurement.decode(allFields)
        #expect(value.sequenceNumber == 258)
        #expect(value.timeOffset == -90)
        #expect(value.userFacingTime == DateTime(year: 2024, month: 3, day: 15, hours: 6, minutes: 0, seconds: 0))
        #expect(value.concentration?.doubleValue == 0.0012)
        #expect(value.sampleType == 1)
        #expect(value.sampleLocation == 1)
        #expect(value.sensorStatus == 0x0021)
        #expect(value.sensorStatusNames == ["device battery low", "result higher than the device can process"])
        #expect(value.contextFollows)
        #expect(value.fields["userFacingTime"] == .string("2024-03-15T06:00:00"))
        #expect(value.fields["timeOffset"] == .int(-90))
        #expect(
            value.fields["sensorStatusBits"]
                == .array([
                    .string("device battery low"), .string("result higher than the device can process"),
                ])
        )
    }

    @Test func molePerLitreUnitBit() throws {
        // flags 0x06: concentration in mol/L; SFLOAT E = −4, M = 55 → 0.0055 mol/L (5.5 mmol/L)
        let value = try GlucoseMeasurement.decode([0x06, 0x01, 0x00] + DateTime.exampleBytes + [0x37, 0xC0, 0xF2])
        #expect(value.isMolePerLitre)
        #expect(value.concentrationUnit == "mol/L")
        #expect(value.concentration?.doubleValue == 0.0055)
        #expect(value.sampleType == 2)
        #expect(value.sampleLocation == 15)
        #expect(value.sampleLocationName == "not available")
        #expect(value.fields["concentrationUnit"] == .string("mol/L"))
    }

    @Test func decodesEveryFlagCombination() throws {
        for flags in 0..<32 {
            var payload: [UInt8] = [UInt8(flags), 0x09, 0x00] + DateTime.exampleBytes
            if flags & 0x01 != 0 { payload += [0x1E, 0x00] }  // +30 min
            if flags & 0x02 != 0 { payload += [0x5F, 0xB0, 0x12] }
            if flags & 0x08 != 0 { payload += [0x00, 0x04] }  // bit 10 general device fault
            let value = try GlucoseMeasurement.decode(payload)
            #expect((value.timeOffset != nil) == (flags & 0x01 != 0), "flags \(flags)")
            #expect((value.concentration != nil) == (flags & 0x02 != 0), "flags \(flags)")
            #expect((value.sampleType != nil) == (flags & 0x02 != 0), "flags \(flags)")
            #expect(value.isMolePerLitre == (flags & 0x04 != 0), "flags \(flags)")
            #expect((value.sensorStatus != nil) == (flags & 0x08 != 0), "flags \(flags)")
            #expect(value.contextFollows == (flags & 0x10 != 0), "flags \(flags)")
            #expect(value.userFacingTime.minutes == (flags & 0x01 != 0 ? 0 : 30), "flags \(flags)")
            if flags & 0x08 != 0 { #expect(value.sensorStatusNames == ["general device fault"]) }
        }
    }

    @Test func timeOffsetCrossesDayMonthAndYearBoundaries() throws {
        func userFacing(_ base: [UInt8], offset: Int16) throws -> DateTime {
            let raw = UInt16(bitPattern: offset)
            return try GlucoseMeasurement.decode([0x01, 0x00, 0x00] + base + [UInt8(raw & 0xFF), UInt8(raw >> 8)])
                .userFacingTime
        }
        // 2024-03-01 00:10:00 − 20 min → 2024-02-29 23:50:00 (leap day)
        #expect(
            try userFacing([0xE8, 0x07, 3, 1, 0, 10, 0], offset: -20)
                == DateTime(year: 2024, month: 2, day: 29, hours: 23, minutes: 50, seconds: 0)
        )
        // 2023-12-31 23:50:30 + 15 min → 2024-01-01 00:05:30
        #expect(
            try userFacing([0xE7, 0x07, 12, 31, 23, 50, 30], offset: 15)
                == DateTime(year: 2024, month: 1, day: 1, hours: 0, minutes: 5, seconds: 30)
        )
        // + 32767 min (about 22.75 days) from 2024-03-15 07:30 → 2024-04-07 01:37
        #expect(
            try userFacing(DateTime.exampleBytes, offset: .max)
                == DateTime(year: 2024, month: 4, day: 7, hours: 1, minutes: 37, seconds: 0)
        )
        // An unknown base time stays unknown.
        #expect(try userFacing([0, 0, 0, 0, 0, 0, 0], offset: 60).isUnknown)
    }

    @Test func reservedTypeAndLocationNibblesAreNamedReserved() throws {
        let value = try GlucoseMeasurement.decode([0x02, 0x00, 0x00] + DateTime.exampleBytes + [0x5F, 0xB0, 0x5B])
        #expect(value.sampleType == 11)
        #expect(value.sampleTypeName == "reserved")
        #expect(value.sampleLocation == 5)
        #expect(value.sampleLocationName == "reserved")
    }

    @Test func controlSolutionIsRecognisedByTypeOrLocation() throws {
        let byType = try GlucoseMeasurement.decode([0x02, 0x00, 0x00] + DateTime.exampleBytes + [0x5F, 0xB0, 0x1A])
        let byLocation = try GlucoseMeasurement.decode(
            [0x02, 0x00, 0x00] + DateTime.exampleBytes + [0x5F, 0xB0, 0x41]
        )
        let patient = try GlucoseMeasurement.decode([0x02, 0x00, 0x00] + DateTime.exampleBytes + [0x5F, 0xB0, 0x11])
        #expect(byType.isControlSolution)
        #expect(byType.sampleTypeName == "control solution")
        #expect(byLocation.isControlSolution)
        #expect(!patient.isControlSolution)
    }

    @Test(arguments: IEEE11073Special.allCases)
    func specialConcentrationsDecodeAsTheirNames(special: IEEE11073Special) throws {
        let code: [IEEE11073Special: [UInt8]] = [
            .nan: [0xFF, 0x07], .nres: [0x00, 0x08], .positiveInfinity: [0xFE, 0x07],
            .negativeInfinity: [0x02, 0x08], .reserved: [0x01, 0x08],
        ]
        let value = try GlucoseMeasurement.decode([0x02, 0x00, 0x00] + DateTime.exampleBytes + code[special]! + [0x11])
        #expect(value.concentration?.special == special)
        #expect(value.fields["concentration"] == .string(special.rawValue))
    }

    @Test func sensorStatusRFUBitsAreShownAsReserved() throws {
        let value = try GlucoseMeasurement.decode([0x08, 0x00, 0x00] + DateTime.exampleBytes + [0x00, 0x90])
        #expect(value.sensorStatusNames == ["reserved bit 12", "reserved bit 15"])
    }

    @Test func ignoresReservedFlagBitsAndTrailingBytes() throws {
        let value = try GlucoseMeasurement.decode([0xE0, 0x05, 0x00] + DateTime.exampleBytes + [0xAA, 0xBB])
        #expect(value.reservedFlags == 0xE0)
        #expect(value.concentration == nil)
        #expect(value.fields["reservedFlags"] == .int(0xE0))
    }

    @Test func rejectsEveryTruncatedPrefix() {
        expectEveryPrefixThrows(GlucoseMeasurement.self, allFields)
        expectEveryPrefixThrows(GlucoseMeasurement.self, hex("02 05 00 E8 07 03 0F 07 1E 00 5F B0 12"))
    }

    @Test func truncationErrorNamesTheMissingField() {
        #expect(
            throws: GATTDecodingError(
                context: "Glucose Measurement (2A18)",
                offset: 12,
                reason: .insufficientBytes(field: "Type-Sample Location", expected: 1, available: 0)
            )
        ) {
            try GlucoseMeasurement.decode([0x02, 0x05, 0x00] + DateTime.exampleBytes + [0x5F, 0xB0])
        }
    }

    @Test func rejectsAnImpossibleBaseTime() {
        #expect(throws: GATTDecodingError.self) {
            try GlucoseMeasurement.decode([0x00, 0x05, 0x00, 0xE8, 0x07, 0x03, 0x0F, 0x18, 0x00, 0x00])
        }
    }
}
