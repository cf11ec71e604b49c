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

extension DateTime {
    /// 2024-03-15 07:30:00, the time in the spec document's constructed examples.
    static let example = DateTime(year: 2024, month: 3, day: 15, hours: 7, minutes: 30, seconds: 0)
}
