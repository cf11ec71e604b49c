import BridgeFoundation
import GATTDecoding
import Testing

@Suite struct BodyCompositionFeatureTests {
    @Test func decodesEverySupportBitAndBothResolutions() throws {
        // 0x0001_9FFF: bits 0–10 all supported; bits 11–14 = 0b0011 (0.1 kg / 0.2 lb);
        // bits 15–17 = 0b011 (0.001 m / 0.1 in).
        let value = try BodyCompositionFeature.decode([0xFF, 0x9F, 0x01, 0x00])
        #expect(value.timeStampSupported && value.multipleUsersSupported && value.basalMetabolismSupported)
        #expect(value.musclePercentageSupported && value.muscleMassSupported && value.fatFreeMassSupported)
        #expect(value.softLeanMassSupported && value.bodyWaterMassSupported && value.impedanceSupported)
        #expect(value.weightSupported && value.heightSupported)
        #expect(value.massResolution.kilograms == 0.1)
        #expect(value.massResolution.pounds == 0.2)
        #expect(value.heightResolution.metres == 0.001)
        #expect(value.reservedBits == 0)
    }

    @Test(arguments: 0..<11)
    func decodesEachSupportBitAlone(bit: Int) throws {
        let raw = UInt32(1) << bit
        let value = try BodyCompositionFeature.decode([UInt8(raw & 0xFF), UInt8(raw >> 8), 0, 0])
        let flags = [
            value.timeStampSupported, value.multipleUsersSupported, value.basalMetabolismSupported,
            value.musclePercentageSupported, value.muscleMassSupported, value.fatFreeMassSupported,
            value.softLeanMassSupported, value.bodyWaterMassSupported, value.impedanceSupported,
            value.weightSupported, value.heightSupported,
        ]
        #expect(flags.enumerated().allSatisfy { $0.element == ($0.offset == bit) })
        #expect(value.massResolution.code == 0)
        #expect(value.heightResolution.code == 0)
        // every support bit is shown, in spec order
        let keys = value.fields.keys.filter { $0.hasSuffix("Supported") }
        #expect(keys.count == 11)
        #expect(value.fields[keys[bit]] == .bool(true))
    }

    @Test(arguments: UInt32(0)...15)
    func decodesEveryMassResolutionCode(code: UInt32) throws {
        let raw = code << 11
        let value = try BodyCompositionFeature.decode([UInt8(raw & 0xFF), UInt8(raw >> 8 & 0xFF), UInt8(raw >> 16), 0])
        #expect(value.massResolution.code == UInt8(code))
        #expect(value.massResolution.kilograms == WeightScaleFeatureTests.weightCodes[UInt8(code)]?.0)
        #expect(value.heightResolution.code == 0)
    }

    @Test(arguments: UInt32(0)...7)
    func decodesEveryHeightResolutionCode(code: UInt32) throws {
        let raw = code << 15
        let value = try BodyCompositionFeature.decode([UInt8(raw & 0xFF), UInt8(raw >> 8 & 0xFF), UInt8(raw >> 16), 0])
        #expect(value.heightResolution.code == UInt8(code))
        #expect(value.massResolution.code == 0)
    }

    @Test func ignoresReservedBitsButShowsThem() throws {
        let value = try BodyCompositionFeature.decode([0x01, 0x00, 0xFC, 0xFF])  // bit 0 + bits 18–31
        #expect(value.timeStampSupported)
        #expect(!value.multipleUsersSupported)
        #expect(value.reservedBits == 0xFFFC_0000)
        #expect(value.fields["reservedBits"] == .int(0xFFFC_0000))
    }

    @Test func rejectsEveryTruncatedPrefix() {
        let payload: [UInt8] = [0xFF, 0x9F, 0x01, 0x00]
        for length in 0..<payload.count {
            #expect(throws: GATTDecodingError.self) { try BodyCompositionFeature.decode(Array(payload.prefix(length))) }
        }
    }

    @Test func isInTheCatalogue() {
        #expect(DecoderCatalog.decoder(forCharacteristic: BluetoothUUID(0x2A9B)) == BodyCompositionFeature.self)
        #expect(DecoderCatalog.decoder(identifier: "body-composition-feature") == BodyCompositionFeature.self)
    }
}
