/// Why a Eufy P2 handshake stopped: each names the message and what was wrong with it, so the log says whether the
/// key, the scale or the radio is at fault.
public enum EufyHandshakeError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The session was started without the scale's address, which the key is derived from.
    case noAddress
    /// The address is not six hexadecimal octets.
    case badAddress(String)
    /// A message is too long for the one-byte length of its segments' header.
    case messageTooLong(prefix: UInt8, length: Int)
    /// A segment shorter than its header and checksum.
    case shortSegment(prefix: UInt8, length: Int)
    /// A segment whose last byte is not the XOR of the bytes before it.
    case checksum(prefix: UInt8, segment: Int, found: UInt8, computed: UInt8)
    /// A segment out of order (or one of a message whose first segment was lost).
    case outOfOrder(prefix: UInt8, expected: Int, found: Int)
    /// The segments' payloads do not add up to the length their header gives.
    case length(prefix: UInt8, header: Int, received: Int)
    /// The reassembled payload is not base64, or does not decrypt to UTF-8 text with the key derived from the
    /// address (a wrong key, or bytes changed on the way).
    case undecryptable(prefix: UInt8)
    /// The scale's C3 says it did not accept the C2.
    case refused(status: UInt8)
    /// No answer within the step's timeout.
    case noAnswer(expected: String, seconds: Double)

    public var description: String {
        switch self {
        case .noAddress:
            "the handshake key is derived from the scale's address, and the session has none"
        case .badAddress(let address):
            "'\(address)' is not a Bluetooth address (six hexadecimal octets)"
        case .messageTooLong(let prefix, let length):
            "the \(Self.name(prefix)) message has \(length) bytes, more than its header's length byte holds"
        case .shortSegment(let prefix, let length):
            "a \(Self.name(prefix)) segment of \(length) bytes is shorter than its header and checksum"
        case .checksum(let prefix, let segment, let found, let computed):
            "\(Self.name(prefix)) segment \(segment): XOR checksum is \(Self.hex(found)), computed \(Self.hex(computed))"
        case .outOfOrder(let prefix, let expected, let found):
            "\(Self.name(prefix)) segment \(found) arrived where segment \(expected) was expected"
        case .length(let prefix, let header, let received):
            "the \(Self.name(prefix)) segments carry \(received) bytes where their header says \(header)"
        case .undecryptable(let prefix):
            "the scale's \(Self.name(prefix)) does not decrypt with the key derived from its address "
                + "(a wrong key, or a changed frame)"
        case .refused(let status):
            "the scale refused the handshake (C3 status \(Self.hex(status)))"
        case .noAnswer(let expected, let seconds):
            "no \(expected) from the scale within \(SessionMachine.seconds(seconds))"
        }
    }

    static func name(_ prefix: UInt8) -> String { "C" + String(prefix & 0x0F) }

    static func hex(_ byte: UInt8) -> String {
        let text = String(byte, radix: 16, uppercase: true)
        return text.count == 1 ? "0" + text : text
    }
}
