import BridgeFoundation
import Testing

@Suite struct HexTests {
    @Test func readsWithSeparators() throws {
        #expect(try Hex.bytes("0x0E A4:38-e8") == [0x0E, 0xA4, 0x38, 0xE8])
        #expect(try Hex.bytes("") == [])
    }

    @Test func refusesOddAndNonHex() {
        #expect(throws: Hex.ParseError.self) { try Hex.bytes("ABC") }
        #expect(throws: Hex.ParseError.self) { try Hex.bytes("AG") }
    }

    @Test func writesLowercase() {
        #expect(Hex.string([0x00, 0xAB, 0xFF]) == "00abff")
        #expect(Hex.string([0x01, 0x02].lazy.map { $0 }) == "0102")
    }
}
