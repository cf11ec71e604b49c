/// The framing of Eufy P2 handshake messages: a message (the base64 text of a ciphertext) goes in segments of at
/// most 15 bytes, each `prefix, segment count, segment index, message length, payload…, XOR` where the last byte is
/// the XOR of every byte before it. The bridge writes C0 and C2; the scale answers C1 and C3.
///
/// - SeeAlso: bdr99/eufylife-ble-client `util.py` (`get_sub_contract_bytes`), `auth_handler.py` (`handle_c1`).
public enum EufySegments {
    static let payloadLimit = 15

    /// The segments of `message`, in order.
    /// - Throws: ``EufyHandshakeError/messageTooLong(prefix:length:)`` beyond 255 bytes.
    public static func frames(prefix: UInt8, message: [UInt8]) throws(EufyHandshakeError) -> [[UInt8]] {
        guard message.count <= 255 else { throw .messageTooLong(prefix: prefix, length: message.count) }
        let count = max(1, (message.count + payloadLimit - 1) / payloadLimit)
        return (0..<count).map { index in
            let payload = message[
                min(message.count, index * payloadLimit)..<min(message.count, (index + 1) * payloadLimit)
            ]
            let body = [prefix, UInt8(count), UInt8(index), UInt8(message.count)] + payload
            return body + [xor(body)]
        }
    }

    static func xor(_ bytes: some Sequence<UInt8>) -> UInt8 { bytes.reduce(0, ^) }

    /// Reassembles one message from its segments as they arrive.
    public struct Assembler: Sendable {
        public let prefix: UInt8
        private var payload: [UInt8] = []
        private var next = 0

        public init(prefix: UInt8) { self.prefix = prefix }

        /// Takes one segment; returns the message once its last segment arrived.
        /// - Throws: ``EufyHandshakeError`` for a short segment, a wrong checksum, a segment out of order or a
        ///   length that does not add up. Nothing is kept from a message that failed.
        public mutating func take(_ segment: [UInt8]) throws(EufyHandshakeError) -> [UInt8]? {
            guard segment.count >= 5 else { throw .shortSegment(prefix: prefix, length: segment.count) }
            let computed = EufySegments.xor(segment.dropLast())
            guard computed == segment[segment.count - 1] else {
                throw .checksum(
                    prefix: prefix,
                    segment: Int(segment[2]),
                    found: segment[segment.count - 1],
                    computed: computed
                )
            }
            let count = Int(segment[1])
            let index = Int(segment[2])
            let length = Int(segment[3])
            guard index == next else {
                defer { reset() }
                throw .outOfOrder(prefix: prefix, expected: next, found: index)
            }
            payload += segment[4..<(segment.count - 1)]
            next += 1
            guard index + 1 >= count else { return nil }
            defer { reset() }
            guard payload.count == length else {
                throw .length(prefix: prefix, header: length, received: payload.count)
            }
            return payload
        }

        private mutating func reset() {
            payload = []
            next = 0
        }
    }
}
