/// The control packet type in the high nibble of the fixed header.
///
/// - SeeAlso: MQTT 3.1.1 §2.2.1, "MQTT Control Packet type".
public enum MQTTPacketType: UInt8, Sendable, Hashable, CaseIterable {
    case connect = 1
    case connack = 2
    case publish = 3
    case puback = 4
    case pubrec = 5
    case pubrel = 6
    case pubcomp = 7
    case subscribe = 8
    case suback = 9
    case unsubscribe = 10
    case unsuback = 11
    case pingreq = 12
    case pingresp = 13
    case disconnect = 14

    /// The flags nibble that 3.1.1 requires for every type but PUBLISH.
    var requiredFlags: UInt8 {
        switch self {
        case .pubrel, .subscribe, .unsubscribe: 0b0010
        default: 0
        }
    }
}
