import NIOCore

/// Reads the fields of one packet body, throwing ``MQTTPacketError`` with the offset of the field that failed.
///
/// The body is a slice that holds exactly the remaining length; `baseOffset` is the body's offset in the packet.
struct PacketReader {
    private(set) var buffer: ByteBuffer
    let baseOffset: Int
    let bodyLength: Int

    init(body: ByteBuffer, baseOffset: Int) {
        self.buffer = body
        self.baseOffset = baseOffset
        self.bodyLength = body.readableBytes
    }

    /// Offset in the packet of the next byte to read.
    var offset: Int { baseOffset + (bodyLength - buffer.readableBytes) }
    var consumed: Int { bodyLength - buffer.readableBytes }
    var remaining: Int { buffer.readableBytes }

    mutating func readByte(_ field: String) throws(MQTTPacketError) -> UInt8 {
        guard let value = buffer.readInteger(as: UInt8.self) else {
            throw .insufficientBytes(field: field, expected: 1, actual: buffer.readableBytes, offset: offset)
        }
        return value
    }

    mutating func readUInt16(_ field: String) throws(MQTTPacketError) -> UInt16 {
        guard buffer.readableBytes >= 2, let value = buffer.readInteger(endianness: .big, as: UInt16.self) else {
            throw .insufficientBytes(field: field, expected: 2, actual: buffer.readableBytes, offset: offset)
        }
        return value
    }

    mutating func readPacketIdentifier(_ type: MQTTPacketType) throws(MQTTPacketError) -> UInt16 {
        let at = offset
        let id = try readUInt16("packet identifier")
        guard id != 0 else { throw .zeroPacketIdentifier(packetType: type, offset: at) }
        return id
    }

    /// A two-byte length followed by that many bytes.
    mutating func readBinary(_ field: String) throws(MQTTPacketError) -> ByteBuffer {
        let length = Int(try readUInt16("\(field) length"))
        guard let bytes = buffer.readSlice(length: length) else {
            throw .insufficientBytes(field: field, expected: length, actual: buffer.readableBytes, offset: offset)
        }
        return bytes
    }

    /// A two-byte length followed by that many bytes of UTF-8 without U+0000.
    mutating func readString(_ field: String) throws(MQTTPacketError) -> String {
        let start = offset + 2
        let bytes = try readBinary(field)
        guard let string = String(validating: bytes.readableBytesView, as: UTF8.self),
            !string.utf8.contains(0)
        else {
            throw .invalidUTF8(field: field, offset: start)
        }
        return string
    }

    /// Everything left in the body.
    mutating func readRest() -> ByteBuffer {
        buffer.readSlice(length: buffer.readableBytes) ?? ByteBuffer()
    }
}

extension ByteBuffer {
    /// Writes a two-byte big-endian length and the bytes.
    mutating func writeMQTTBinary(_ bytes: ByteBuffer, field: String) throws(MQTTPacketError) {
        guard bytes.readableBytes <= Int(UInt16.max) else {
            throw .fieldTooLong(field: field, length: bytes.readableBytes)
        }
        writeInteger(UInt16(bytes.readableBytes), endianness: .big)
        writeImmutableBuffer(bytes)
    }

    /// Writes a two-byte big-endian length and the UTF-8 bytes of `string`.
    mutating func writeMQTTString(_ string: String, field: String) throws(MQTTPacketError) {
        let length = string.utf8.count
        guard length <= Int(UInt16.max) else { throw .fieldTooLong(field: field, length: length) }
        writeInteger(UInt16(length), endianness: .big)
        writeString(string)
    }

    /// Writes the remaining-length variable byte integer (1 to 4 bytes, 7 bits each, least significant first).
    mutating func writeRemainingLength(_ value: Int) throws(MQTTPacketError) {
        guard value >= 0, value <= MQTTPacket.maximumRemainingLength else {
            throw .packetTooLarge(remainingLength: value)
        }
        var rest = value
        repeat {
            var byte = UInt8(rest & 0x7F)
            rest >>= 7
            if rest > 0 { byte |= 0x80 }
            writeInteger(byte)
        } while rest > 0
    }
}
