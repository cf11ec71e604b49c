/// The delivery guarantee of a PUBLISH, a will or a subscription.
///
/// - SeeAlso: MQTT 3.1.1 §4.3, "Quality of Service levels and protocol flows".
public enum QoS: UInt8, Sendable, Hashable, CaseIterable, Comparable {
    /// Fire and forget: no acknowledgement.
    case atMostOnce = 0
    /// Acknowledged with PUBACK; may arrive more than once.
    case atLeastOnce = 1
    /// Four-way handshake. Decoded for completeness; the client does not publish with it.
    case exactlyOnce = 2

    public static func < (lhs: QoS, rhs: QoS) -> Bool { lhs.rawValue < rhs.rawValue }
}
