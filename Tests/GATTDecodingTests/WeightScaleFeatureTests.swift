import BridgeFoundation
import GATTDecoding
import Testing

@Suite struct WeightScaleFeatureTests {
    @Test func decodesTheReferenceExample() throws {
        // 9D 01 00 00 = 0x0000019D: bit 0 time stamp, bit 2 BMI, bits 3–6 = 0b0011 (0.1 kg / 0.2 lb),
        // bits 7–9 = 0b011 (0.001 m / 0.1 in).
        let value = try WeightScaleFeature.decode([0x9D, 0x01, 0x00, 0x00])
        #expect(value.timeStampSupported)
        #expect(!value.multipleUsersSupported)
        #expect(value.bmiSupported)
        #expect(value.weightResolution.code == 3)
        #expect(value.weightResolution.kilograms == 0.1)
        #expect(value.weightResolution.pounds == 0.2)
        #expect(value.heightResolution.code == 3)
        #expect(value.heightResolution.metres == 0.001)
        #expect(value.heightResolution.inches == 0.1)
        #expect(value.reservedBits == 0)
        #expect(value.fields["weightResolution"] == .object(["kg": .double(0.1), "lb": .double(0.2)]))
        #expect(value.fields["heightResolution"] == .object(["m": .double(0.001), "in": .double(0.1)]))
        #expect(value.fields["reservedBits"] == nil)
    }

    @Test(arguments: 0..<8)
    func decodesEverySupportBitCombination(bits: Int) throws {
        let value = try WeightScaleFeature.decode([UInt8(bits), 0, 0, 0])
        #expect(value.timeStampSupported == (bits & 1 != 0))
        #expect(value.multipleUsersSupported == (bits & 2 != 0))
        #expect(value.bmiSupported == (bits & 4 != 0))
        #expect(value.fields["bmiSupported"] == .bool(bits & 4 != 0))
        #expect(value.weightResolution.field == .string("unspecified"))
        #expect(value.heightResolution.field == .string("unspecified"))
    }

    /// The table of `gatt-reference.md` §4.2: code → (kg, lb).
    static let weightCodes: [UInt8: (Double, Double)] = [
        1: (0.5, 1), 2: (0.2, 0.5), 3: (0.1, 0.2), 4: (0.05, 0.1), 5: (0.02, 0.05), 6: (0.01, 0.02), 7: (0.005, 0.01),
    ]

    @Test(arguments: UInt32(0)...15)
    func decodesEveryWeightResolutionCode(code: UInt32) throws {
        let raw = code << 3
        let value = try WeightScaleFeature.decode([UInt8(raw & 0xFF), UInt8(raw >> 8), 0, 0])
        #expect(value.weightResolution.code == UInt8(code))
        if let (kg, lb) = Self.weightCodes[UInt8(code)] {
            #expect(value.weightResolution.kilograms == kg)
            #expect(value.weightResolution.pounds == lb)
        } else {
            #expect(value.weightResolution.kilograms == nil)
            #expect(value.fields["weightResolution"] == .string(code == 0 ? "unspecified" : "reserved"))
            #expect(value.weightResolution.isReserved == (code > 7))
        }
        #expect(value.heightResolution.code == 0)
    }

    @Test(arguments: UInt32(0)...7)
    func decodesEveryHeightResolutionCode(code: UInt32) throws {
        let table: [UInt32: (Double, Double)] = [1: (0.01, 1), 2: (0.005, 0.5), 3: (0.001, 0.1)]
        let raw = code << 7
        let value = try WeightScaleFeature.decode([UInt8(raw & 0xFF), UInt8(raw >> 8), 0, 0])
        #expect(value.heightResolution.code == UInt8(code))
        #expect(value.heightResolution.metres == table[code]?.0)
        #expect(value.heightResolution.inches == table[code]?.1)
        #expect(value.heightResolution.isReserved == (code > 3))
        #expect(value.weightResolution.code == 0)
    }

    @Test func ignoresReservedBitsButShowsThem() throws {
        // bits 10–31 all set on top of the reference example
        let value = try WeightScaleFeature.decode([0x9D, 0xFD, 0xFF, 0xFF])
        #expect(value.reservedBits == 0xFFFF_FC00)
        #expect(value.weightResolution.kilograms == 0.1)
        #expect(value.heightResolution.metres == 0.001)
        #expect(value.bmiSupported && value.timeStampSupported && !value.multipleUsersSupported)
        #expect(value.fields["reservedBits"] == .int(0xFFFF_FC00))
    }

    @Test func rejectsEveryTruncatedPrefix() {
        let payload: [UInt8] = [0x9D, 0x01, 0x00, 0x00]
        for length in 0..<payload.count {
            #expect(throws: GATTDecodingError.self) { try WeightScaleFeature.decode(Array(payload.prefix(length))) }
        }
    }

    @Test func isInTheCatalogue() {
        #expect(DecoderCatalog.decoder(forCharacteristic: BluetoothUUID(0x2A9E)) == WeightScaleFeature.self)
        #expect(DecoderCatalog.decoder(identifier: "weight-scale-feature") == WeightScaleFeature.self)
    }
}
