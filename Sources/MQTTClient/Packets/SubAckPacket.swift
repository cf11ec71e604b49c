import NIOCore

/// SUBACK: the QoS granted for each filter of a SUBSCRIBE, in order, or failure.
///
/// - SeeAlso: MQTT 3.1.1 §3.9, "SUBACK – Subscribe acknowledgement".
public struct SubAckPacket: Sendable, Hashable {
    /// One SUBACK return code: an open set over the byte.
    public struct ReturnCode: RawRepresentable, Sendable, Hashable {
        public var rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }

        public static let grantedQoS0 = ReturnCode(rawValue: 0x00)
        public static let grantedQoS1 = ReturnCode(rawValue: 0x01)
        public static let grantedQoS2 = ReturnCode(rawValue: 0x02)
        public static let failure = ReturnCode(rawValue: 0x80)

        /// The granted QoS, or nil for ``failure`` and unknown codes.
        public var grantedQoS: QoS? { QoS(rawValue: rawValue) }
    }

    public var packetID: UInt16
    public var returnCodes: [ReturnCode]

    public init(packetID: UInt16, returnCodes: [ReturnCode]) {
        self.packetID = packetID
        self.returnCodes = returnCodes
    }

    func encodeBody(into buffer: inout ByteBuffer) throws(MQTTPacketError) {
        guard packetID != 0 else { throw .zeroPacketIdentifier(packetType: .suback, offset: 0) }
        guard !returnCodes.isEmpty else { throw .emptyPayload(packetType: .suback) }
        buffer.writeInteger(packetID, endianness: .big)
        for code in returnCodes { buffer.writeInteger(code.rawValue) }
    }

    init(decoding reader: inout PacketReader) throws(MQTTPacketError) {
        packetID = try reader.readPacketIdentifier(.suback)
        var codes: [ReturnCode] = []
        while reader.remaining > 0 { codes.append(ReturnCode(rawValue: try reader.readByte("return code"))) }
        guard !codes.isEmpty else { throw .emptyPayload(packetType: .suback) }
        returnCodes = codes
    }
}
