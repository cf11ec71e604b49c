import BridgeFoundation
import GATTDecoding
import Testing

@Suite struct MiScaleV1Tests {
    @Test func decodesTheDocumentExample() throws {
        // 20 A4 38 E8 07 03 0F 07 1E 00 → stabilised, 14500 × 0.005 kg = 72.5 kg, 2024-03-15 07:30:00
        let value = try MiScaleV1.decode(hex("20 A4 38 E8 07 03 0F 07 1E 00"))
        #expect(value.isStabilised)
        #expect(!value.isLoadRemoved)
        #expect(value.weightUnit == .kilogram)
        #expect(value.weight == 72.5)
        #expect(value.timeStamp == .example)
        #expect(value.isFinal)
        #expect(
            value.fields.keys == ["control", "stabilised", "loadRemoved", "mode", "weight", "weightUnit", "timeStamp"]
        )
        #expect(MiScaleV1.source == .serviceData(BluetoothUUID(0x181D)))
        #expect(DecoderCatalog.decoder(forServiceData: BluetoothUUID(0x181D)) == MiScaleV1.self)
    }

    @Test(arguments: [
        (UInt8(0x20), 72.5, MiScaleV1.WeightUnit.kilogram),  // 14500 / 200
        (0x21, 145.0, .pound),  // bit 0: 14500 / 100 lb
        (0x30, 145.0, .jin),  // bit 4: 14500 / 100 jin
        (0x31, 145.0, .pound),  // both unit bits: lb wins
    ])
    func unitBitsSelectTheScale(control: UInt8, weight: Double, unit: MiScaleV1.WeightUnit) throws {
        let value = try MiScaleV1.decode([control, 0xA4, 0x38] + DateTime.exampleBytes)
        #expect(value.weight == weight)
        #expect(value.weightUnit == unit)
        #expect(value.fields["weightUnit"] == .string(unit.rawValue))
    }

    @Test func finalOnlyWhenStabilisedNotRemovedAndNonZero() throws {
        for control in 0...255 {
            for raw: [UInt8] in [[0xA4, 0x38], [0x00, 0x00]] {
                let value = try MiScaleV1.decode([UInt8(control)] + raw + DateTime.exampleBytes)
                let expected = control & 0x20 != 0 && control & 0x80 == 0 && raw != [0, 0]
                #expect(value.isFinal == expected, "control \(control)")
                #expect(value.control == UInt8(control))
                #expect(value.fields["loadRemoved"] == .bool(control & 0x80 != 0))
            }
        }
    }

    @Test func acceptsAnUnsetClock() throws {
        // 1970-01-01 00:00:00, a never-set clock
        let value = try MiScaleV1.decode([0xA0, 0xA4, 0x38, 0xB2, 0x07, 0x01, 0x01, 0x00, 0x00, 0x00])
        #expect(value.timeStamp == DateTime(year: 1970, month: 1, day: 1, hours: 0, minutes: 0, seconds: 0))
        #expect(value.isLoadRemoved)
        #expect(!value.isFinal)
    }

    @Test func rejectsEveryTruncatedPrefix() {
        expectEveryPrefixThrows(MiScaleV1.self, hex("20 A4 38 E8 07 03 0F 07 1E 00"))
    }
}

@Suite struct MiBodyCompositionScale2Tests {
    private let example = hex("00 22 E8 07 03 0F 07 1E 00 F4 01 A4 38")

    @Test func decodesTheDocumentExample() throws {
        // 00 22 E8 07 03 0F 07 1E 00 F4 01 A4 38 → stabilised, impedance valid, 500 Ω, 72.5 kg
        let value = try MiBodyCompositionScale2.decode(example)
        #expect(value.isStabilised)
        #expect(value.isImpedanceValid)
        #expect(!value.isLoadRemoved)
        #expect(value.impedance == 500)
        #expect(value.weight == 72.5)
        #expect(value.weightUnit == .kilogram)
        #expect(value.timeStamp == .example)
        #expect(value.isFinal)
        #expect(
            value.fields.keys == [
                "control0", "control1", "stabilised", "loadRemoved", "impedanceValid", "mode", "timeStamp",
                "impedance", "impedanceUnit", "weight", "weightUnit",
            ]
        )
        #expect(DecoderCatalog.decoder(forServiceData: BluetoothUUID(0x181B)) == MiBodyCompositionScale2.self)
    }

    /// The bit-numbering trap: every single control bit maps to exactly the flag the LSB-first table names.
    @Test func eachControlBitHasExactlyItsDocumentedMeaning() throws {
        for bit in 0..<16 {
            var payload = example
            payload[0] = bit < 8 ? UInt8(1 << bit) : 0
            payload[1] = bit >= 8 ? UInt8(1 << (bit - 8)) : 0
            let value = try MiBodyCompositionScale2.decode(payload)
            #expect(value.weightUnit == (bit == 0 ? .pound : bit == 14 ? .jin : .kilogram), "bit \(bit)")
            #expect(value.isImpedanceValid == (bit == 9), "bit \(bit)")
            #expect(value.isStabilised == (bit == 13), "bit \(bit)")
            #expect(value.isLoadRemoved == (bit == 15), "bit \(bit)")
            #expect(value.isObjectMode == (bit == 2), "bit \(bit)")
        }
    }

    @Test(arguments: [
        (UInt8(0x00), UInt8(0x22), 72.5, MiScaleV1.WeightUnit.kilogram),
        (0x01, 0x22, 145.0, .pound),
        (0x00, 0x62, 145.0, .jin),
        (0x01, 0x62, 145.0, .pound),
    ])
    func unitBitsSelectTheScale(control0: UInt8, control1: UInt8, weight: Double, unit: MiScaleV1.WeightUnit) throws {
        var payload = example
        payload[0] = control0
        payload[1] = control1
        let value = try MiBodyCompositionScale2.decode(payload)
        #expect(value.weight == weight)
        #expect(value.weightUnit == unit)
    }

    @Test func impedanceIsShownEvenWhenNotValid() throws {
        var payload = example
        payload[1] = 0x20  // stabilised, impedance not valid
        let value = try MiBodyCompositionScale2.decode(payload)
        #expect(!value.isImpedanceValid)
        #expect(value.fields["impedance"] == .int(500))
        #expect(value.fields["impedanceValid"] == .bool(false))
    }

    @Test func rejectsEveryTruncatedPrefix() {
        expectEveryPrefixThrows(MiBodyCompositionScale2.self, example)
    }
}
