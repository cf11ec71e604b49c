/// CONNACK: the broker's answer to CONNECT.
///
/// - SeeAlso: MQTT 3.1.1 §3.2, "CONNACK – Acknowledge connection request".
public struct ConnAckPacket: Sendable, Hashable {
    /// The CONNACK return code: an open set, so codes outside 3.1.1's table still decode.
    public struct ReturnCode: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public var rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }

        public static let accepted = ReturnCode(rawValue: 0)
        public static let unacceptableProtocolVersion = ReturnCode(rawValue: 1)
        public static let identifierRejected = ReturnCode(rawValue: 2)
        public static let serverUnavailable = ReturnCode(rawValue: 3)
        public static let badUsernameOrPassword = ReturnCode(rawValue: 4)
        public static let notAuthorized = ReturnCode(rawValue: 5)

        public var description: String {
            switch self {
            case .accepted: "accepted"
            case .unacceptableProtocolVersion: "unacceptable protocol version"
            case .identifierRejected: "identifier rejected"
            case .serverUnavailable: "server unavailable"
            case .badUsernameOrPassword: "bad user name or password"
            case .notAuthorized: "not authorized"
            default: "return code \(rawValue)"
            }
        }
    }

    /// Whether the broker resumed a stored session (only ever true when CONNECT had clean session off).
    public var sessionPresent: Bool
    public var returnCode: ReturnCode

    public init(sessionPresent: Bool = false, returnCode: ReturnCode = .accepted) {
        self.sessionPresent = sessionPresent
        self.returnCode = returnCode
    }
}
