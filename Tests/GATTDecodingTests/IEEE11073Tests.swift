import GATTDecoding
import Testing

@Suite struct IEEE11073Tests {
    @Test(arguments: [
        (UInt16(0x07FF), IEEE11073Special.nan), (0x0800, .nres), (0x07FE, .positiveInfinity),
        (0x0802, .negativeInfinity), (0x0801, .reserved),
    ])
    func recognisesSFloatSpecialCodes(raw: UInt16, special: IEEE11073Special) {
        let value = SFloat(rawValue: raw)
        #expect(value.special == special)
        #expect(value.doubleValue == nil)
        #expect(value.field == .string(special.rawValue))
    }

    @Test func treatsF7FFAsFiniteNotNaN() {
        // E = −1, M = 0x7FF = 2047 → 204.7: special only when the exponent is 0.
        #expect(SFloat(rawValue: 0xF7FF).doubleValue == 204.7)
    }

    @Test func decodesTwosComplementExponentAndMantissa() {
        #expect(SFloat(rawValue: 0xF16D).doubleValue == 36.5)  // wire 6D F1
        #expect(SFloat(rawValue: 0xF0BD).doubleValue == 18.9)  // 189 × 10⁻¹, no float artefact
        #expect(SFloat(rawValue: 0x0FFF).doubleValue == -1)  // M = −1, E = 0
        #expect(SFloat(rawValue: 0x2001).doubleValue == 100)  // 1 × 10²
        #expect(SFloat(mantissa: -2045, exponent: -8).doubleValue == -0.00002045)
    }

    @Test(arguments: [
        (UInt32(0x007F_FFFF), IEEE11073Special.nan), (0x0080_0000, .nres), (0x007F_FFFE, .positiveInfinity),
        (0x0080_0002, .negativeInfinity), (0x0080_0001, .reserved),
    ])
    func recognisesFloatSpecialCodes(raw: UInt32, special: IEEE11073Special) {
        #expect(MedFloat(rawValue: raw).special == special)
    }

    @Test func treats7FFFFFFFAsFiniteNotInfinity() {
        let value = MedFloat(rawValue: 0x7FFF_FFFF)
        #expect(value.special == nil)
        #expect(value.exponent == 127)
        #expect(value.mantissa == -1)
        #expect(value.doubleValue == -1e127)
    }

    @Test func decodesFloatFromWireOrder() throws {
        var reader = ByteReader([0x6D, 0x01, 0x00, 0xFF], context: "test")
        #expect(try reader.readMedFloat(field: "t").doubleValue == 36.5)
    }

    @Test func comparesDecodedValuesNotBitPatterns() {
        #expect(SFloat(mantissa: 1000, exponent: -1).doubleValue == SFloat(mantissa: 100, exponent: 0).doubleValue)
    }
}
