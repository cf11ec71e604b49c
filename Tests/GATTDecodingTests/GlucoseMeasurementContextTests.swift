import BridgeFoundation
import GATTDecoding
import Testing

@Suite struct GlucoseMeasurementContextTests {
    /// Flags 0xFF: every field, medication in litres.
    private let allFields: [UInt8] = [
        0xFF,  // flags: carbohydrate, meal, tester-health, exercise, medication, unit L, HbA1c, extended flags
        0x05, 0x00,  // sequence number 5
        0x00,  // extended flags (RFU contents)
        0x01,  // carbohydrate ID 1 breakfast
        0x05, 0xE0,  // carbohydrate SFLOAT E = −2, M = 5 → 0.05 kg
        0x02,  // meal 2 postprandial
        0x51,  // tester 1 self (low nibble), health 5 no health issues (high nibble)
        0x08, 0x07,  // exercise duration 1800 s
        0x3C,  // exercise intensity 60 %
        0x01,  // medication ID 1 rapid-acting insulin
        0x02, 0xC0,  // medication SFLOAT E = −4, M = 2 → 0.0002 L
        0x41, 0xF0,  // HbA1c SFLOAT E = −1, M = 65 → 6.5 %
    ]

    @Test func decodesTheDocumentExample() throws {
        // 02 05 00 01 → seq 5, meal = preprandial
        let value = try GlucoseMeasurementContext.decode(hex("02 05 00 01"))
        #expect(value.sequenceNumber == 5)
        #expect(value.meal == 1)
        #expect(value.fields["mealName"] == .string("preprandial"))
        #expect(value.carbohydrate == nil && value.hbA1c == nil && value.extendedFlags == nil)
        #expect(value.fields.keys == ["flags", "sequenceNumber", "meal", "mealName"])
    }

    @Test func decodesEveryField() throws {
        let value = try GlucoseMeasurementContext.decode(allFields)
        #expect(value.extendedFlags == 0)
        #expect(value.carbohydrateID == 1)
        #expect(value.carbohydrate?.doubleValue == 0.05)
        #expect(value.meal == 2)
        #expect(value.tester == 1)
        #expect(value.health == 5)
        #expect(value.exerciseDuration == 1800)
        #expect(value.exerciseIntensity == 60)
        #expect(value.medicationID == 1)
        #expect(value.medication?.doubleValue == 0.0002)
        #expect(value.medicationUnit == "L")
        #expect(value.hbA1c?.doubleValue == 6.5)
        let fields = value.fields
        #expect(
            fields.keys == [
                "flags", "sequenceNumber", "extendedFlags", "carbohydrateID", "carbohydrateName", "carbohydrate",
                "carbohydrateUnit", "meal", "mealName", "tester", "testerName", "health", "healthName",
                "exerciseDuration",
                "exerciseDurationUnit", "exerciseIntensity", "exerciseIntensityUnit", "medicationID", "medicationName",
                "medication", "medicationUnit", "hbA1c", "hbA1cUnit",
            ]
        )
        #expect(fields["carbohydrateName"] == .string("breakfast"))
        #expect(fields["testerName"] == .string("self"))
        #expect(fields["healthName"] == .string("no health issues"))
        #expect(fields["medicationName"] == .string("rapid acting insulin"))
        #expect(fields["medicationUnit"] == .string("L"))
    }

    @Test func decodesEveryFlagCombination() throws {
        for flags in 0..<256 {
            var payload: [UInt8] = [UInt8(flags), 0x07, 0x00]
            if flags & 0x80 != 0 { payload += [0x00] }
            if flags & 0x01 != 0 { payload += [0x04, 0x05, 0xE0] }
            if flags & 0x02 != 0 { payload += [0x03] }
            if flags & 0x04 != 0 { payload += [0xF2] }
            if flags & 0x08 != 0 { payload += [0xFF, 0xFF, 0x50] }
            if flags & 0x10 != 0 { payload += [0x04, 0x02, 0xC0] }
            if flags & 0x40 != 0 { payload += [0x41, 0xF0] }
            let value = try GlucoseMeasurementContext.decode(payload)
            #expect(value.sequenceNumber == 7)
            #expect((value.extendedFlags != nil) == (flags & 0x80 != 0), "flags \(flags)")
            #expect((value.carbohydrate != nil) == (flags & 0x01 != 0), "flags \(flags)")
            #expect((value.meal != nil) == (flags & 0x02 != 0), "flags \(flags)")
            #expect((value.testerHealth != nil) == (flags & 0x04 != 0), "flags \(flags)")
            #expect((value.exerciseDuration != nil) == (flags & 0x08 != 0), "flags \(flags)")
            #expect((value.medication != nil) == (flags & 0x10 != 0), "flags \(flags)")
            #expect(value.medicationUnit == (flags & 0x20 != 0 ? "L" : "kg"), "flags \(flags)")
            #expect((value.hbA1c != nil) == (flags & 0x40 != 0), "flags \(flags)")
            if flags & 0x40 != 0 { #expect(value.hbA1c?.doubleValue == 6.5, "flags \(flags)") }
        }
    }

    @Test func exerciseDurationOverrunAndNotAvailableNibbles() throws {
        let value = try GlucoseMeasurementContext.decode([0x0C, 0x01, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0x64])
        #expect(value.isExerciseDurationOverrun)
        #expect(value.fields["exerciseDuration"] == .string("overrun"))
        #expect(value.fields["testerName"] == .string("not available"))
        #expect(value.fields["healthName"] == .string("not available"))
    }

    @Test func reservedCodesAreNamedReserved() throws {
        let value = try GlucoseMeasurementContext.decode([0x13, 0x01, 0x00, 0x08, 0x05, 0xE0, 0x00, 0x06, 0x02, 0xC0])
        #expect(value.fields["carbohydrateName"] == .string("reserved"))
        #expect(value.fields["mealName"] == .string("reserved"))
        #expect(value.fields["medicationName"] == .string("reserved"))
        #expect(value.medicationUnit == "kg")
    }

    @Test func specialValuesDecodeAsTheirNames() throws {
        let value = try GlucoseMeasurementContext.decode([
            0x51, 0x01, 0x00, 0x01, 0xFF, 0x07, 0x01, 0x00, 0x08, 0xFE, 0x07,
        ])
        #expect(value.fields["carbohydrate"] == .string("NaN"))
        #expect(value.fields["medication"] == .string("NRes"))
        #expect(value.fields["hbA1c"] == .string("+INF"))
    }

    @Test func rejectsEveryTruncatedPrefix() {
        expectEveryPrefixThrows(GlucoseMeasurementContext.self, allFields)
        expectEveryPrefixThrows(GlucoseMeasurementContext.self, hex("02 05 00 01"))
    }

    @Test func truncationErrorNamesTheMissingField() {
        #expect(
            throws: GATTDecodingError(
                context: "Glucose Measurement Context (2A34)",
                offset: 3,
                reason: .insufficientBytes(field: "Extended Flags", expected: 1, available: 0)
            )
        ) {
            try GlucoseMeasurementContext.decode([0x80, 0x05, 0x00])
        }
    }
}
