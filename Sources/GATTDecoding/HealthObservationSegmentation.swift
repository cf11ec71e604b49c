/// The Segmentation Header that starts every Live or Stored Health Observations value: bit 0 first segment,
/// bit 1 last segment, bits 2–7 a rolling segment counter (0–63, one more for each segment the server sends,
/// wrapping to 0). A value longer than the ATT payload is sent as several segments; the pipeline joins them
/// (``MultiPacketPayload``) into one value with a single header whose first and last bits are both set.
/// - SeeAlso: Generic Health Sensor Service 1.0 §3 (Segmentation); Realtek's `ghss_format_health_obs_segment`.
enum HealthObservationSegmentation {
    static let first: UInt8 = 0x01
    static let last: UInt8 = 0x02

    /// A first segment whose value continues in the next one.
    static func continues(_ bytes: [UInt8]) -> Bool {
        guard let header = bytes.first else { return false }
        return header & first != 0 && header & last == 0
    }

    /// `accumulated` (the first segments, joined) followed by the next segment's data.
    /// - Throws: when `next` is empty, starts a new value, or does not carry the next counter value (a segment
    ///   was lost, so the value cannot be rebuilt).
    static func merge(
        _ accumulated: [UInt8],
        _ next: [UInt8],
        context: String
    ) throws(GATTDecodingError) -> [UInt8] {
        guard let header = next.first, let previous = accumulated.first else {
            throw GATTDecodingError(
                context: context,
                offset: 0,
                reason: .insufficientBytes(field: "Segmentation Header", expected: 1, available: 0)
            )
        }
        guard header & first == 0 else {
            throw GATTDecodingError(
                context: context,
                offset: 0,
                reason: .invalidValue(
                    field: "Segmentation Header",
                    raw: UInt64(header),
                    expected: "the next segment of the value begun before (first-segment bit clear)"
                )
            )
        }
        let expected = ((previous >> 2) &+ 1) & 0x3F
        guard header >> 2 == expected else {
            throw GATTDecodingError(
                context: context,
                offset: 0,
                reason: .invalidValue(
                    field: "Rolling Segment Counter",
                    raw: UInt64(header >> 2),
                    expected: "\(expected) (a segment was lost)"
                )
            )
        }
        return [first | (header & ~first)] + accumulated.dropFirst() + next.dropFirst()
    }

    /// A whole value with its counter cleared: the same observation sent again (a second download) has the same
    /// bytes, so its samples have the same idempotency key.
    static func complete(_ bytes: [UInt8]) -> [UInt8] {
        guard let header = bytes.first else { return bytes }
        return [header & (first | last)] + bytes.dropFirst()
    }

    /// Reads the header of a value that must be whole (both bits set).
    static func readWhole(_ reader: inout ByteReader) throws(GATTDecodingError) -> UInt8 {
        let header = try reader.read(UInt8.self, field: "Segmentation Header")
        guard header & (first | last) == first | last else {
            throw reader.error(
                .invalidValue(
                    field: "Segmentation Header",
                    raw: UInt64(header),
                    expected: "a whole value (first and last segment bits set; segments are joined before decoding)"
                )
            )
        }
        return header
    }
}
