import BridgeFoundation
import GATTDecoding
import Testing

/// Bytes from spaced hex as the spec document writes them (`02 05 00 …`).
func hex(_ text: String) -> [UInt8] {
    do {
        return try Hex.bytes(text)
    } catch {
        Issue.record("bad hex in test: \(text)")
        return []
    }
}

/// Every proper prefix of `payload` must be rejected with a ``GATTDecodingError`` (never read out of bounds).
func expectEveryPrefixThrows<T: GATTPayload>(
    _: T.Type,
    _ payload: [UInt8],
    sourceLocation: SourceLocation = #_sourceLocation
) {
    for length in 0..<payload.count {
        #expect(throws: GATTDecodingError.self, "prefix of \(length) bytes", sourceLocation: sourceLocation) {
            try T.decode(Array(payload.prefix(length)))
        }
    }
}

extension DateTime {
    /// 2024-03-15 07:30:00, the time in the spec document's constructed examples.
    static let example = DateTime(year: 2024, month: 3, day: 15, hours: 7, minutes: 30, seconds: 0)
    /// Its 7 octets: `E8 07 03 0F 07 1E 00`.
    static let exampleBytes: [UInt8] = [0xE8, 0x07, 0x03, 0x0F, 0x07, 0x1E, 0x00]
}
