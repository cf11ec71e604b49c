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

    @Test func errorsSayWhereAndWhat() {
        // Offsets count digits and separators after a leading 0x; recording problems quote these messages.
        func failure(_ text: String) -> String? {
            do {
                _ = try Hex.bytes(text)
                return nil
            } catch {
                return error.description
            }
        }
        #expect(failure("0x12 G4") == "invalid hex at character 3: 'G' is not a hex digit")
        #expect(failure("A B:C") == "invalid hex at character 5: odd number of hex digits (3)")
        #expect(failure("f") == "invalid hex at character 1: odd number of hex digits (1)")
        #expect(failure("\"1") == "invalid hex at character 0: '\"' is not a hex digit")
        #expect(failure("0X0e-a4") == nil)
    }

    @Test func writesIntoABuffer() {
        var out = [UInt8](repeating: 0, count: 8)
        let written = out.withUnsafeMutableBufferPointer { Hex.write([0x00, 0xAB, 0x1F], into: $0) }
        #expect(written == 6)
        #expect(String(decoding: out[..<written], as: UTF8.self) == "00ab1f")
        #expect(out.withUnsafeMutableBufferPointer { Hex.write([], into: $0) } == 0)
    }

    @Test func writesLowercase() {
        #expect(Hex.string([0x00, 0xAB, 0xFF]) == "00abff")
        #expect(Hex.string([0x01, 0x02].lazy.map { $0 }) == "0102")
    }
}
