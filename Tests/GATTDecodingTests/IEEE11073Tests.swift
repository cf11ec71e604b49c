import BridgeFoundation
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

@Suite struct BluetoothUUIDTests {
    @Test(arguments: ["2A9D", "2a9d", "0x2A9D", "00002A9D", "00002a9d-0000-1000-8000-00805f9b34fb"])
    func parsesEverySpellingOfAnAssignedNumber(text: String) throws {
        let uuid = try #require(BluetoothUUID(text))
        #expect(uuid == .weightMeasurement)
        #expect(uuid.description == "2A9D")
        #expect(uuid.shortValue == 0x2A9D)
        #expect(uuid.uuidString == "00002a9d-0000-1000-8000-00805f9b34fb")
    }

    @Test func keepsVendorUUIDsWhole() throws {
        let uuid = try #require(BluetoothUUID("6E400001-B5A3-F393-E0A9-E50E24DCCA9E"))
        #expect(uuid.shortValue == nil)
        #expect(uuid.description == "6e400001-b5a3-f393-e0a9-e50e24dcca9e")
    }

    @Test(arguments: ["", "2A9", "xyz1", "2A9D-", "0000-2a9d", "00002a9d-0000-1000-8000-00805f9b34f"])
    func rejectsNonUUIDs(text: String) {
        #expect(BluetoothUUID(text) == nil)
    }
}
