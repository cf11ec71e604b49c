/// The packets of the Omron memory-map protocol (facts from omblepy's protocol notes): a command is
/// `[length] [type, 2 bytes] [address, 2 bytes big-endian] [count] [data…] [00] [xor]`, where `length` counts the
/// whole packet and the last byte makes the XOR of every byte zero. The device answers with the type's high bit
/// set: `80 00` start, `81 00` read (the `count` bytes at `address` follow the header), `8F 00` end (byte 6 is a
/// status, 0 = fine). Packets travel in 16-byte pieces, piece *n* on channel *n*.
public enum OmronPacket {
    public static let startType: UInt16 = 0x0000
    public static let readType: UInt16 = 0x0100
    public static let endType: UInt16 = 0x0F00
    /// Bytes of a packet per channel.
    public static let pieceSize = 16

    /// XOR of every byte.
    public static func xor(_ bytes: some Sequence<UInt8>) -> UInt8 { bytes.reduce(0, ^) }

    /// A command packet with its checksum.
    public static func command(_ type: UInt16, address: Int, count: Int, data: [UInt8] = []) -> [UInt8] {
        var packet: [UInt8] = [
            UInt8(truncatingIfNeeded: data.count + 8), UInt8(type >> 8), UInt8(type & 0xFF),
            UInt8(truncatingIfNeeded: address >> 8), UInt8(truncatingIfNeeded: address),
            UInt8(truncatingIfNeeded: count),
        ]
        packet += data
        packet.append(0)
        packet.append(xor(packet))
        return packet
    }

    /// `08 00 00 00 00 10 00 18`: start of transmission.
    public static var start: [UInt8] { command(startType, address: 0, count: 0x10) }
    /// `08 0F 00 00 00 00 00 07`: end of transmission.
    public static var end: [UInt8] { command(endType, address: 0, count: 0) }
    /// Read `count` bytes at `address`.
    public static func read(address: Int, count: Int) -> [UInt8] { command(readType, address: address, count: count) }

    /// Splits a packet into its per-channel pieces.
    public static func pieces(_ packet: [UInt8]) -> [[UInt8]] {
        stride(from: 0, to: packet.count, by: pieceSize).map { Array(packet[$0..<min($0 + pieceSize, packet.count)]) }
    }
}

/// A device's answer packet.
public struct OmronResponse: Sendable, Hashable {
    /// `0x8000` start, `0x8100` read, `0x8F00` end.
    public var type: UInt16
    public var address: Int
    /// The bytes read (read), the status byte (end), the device's identification bytes (start).
    public var data: [UInt8]

    public init(type: UInt16, address: Int, data: [UInt8]) {
        self.type = type
        self.address = address
        self.data = data
    }

    /// Reads an assembled packet.
    /// - Throws: ``OmronPacketError`` for a short packet, a bad checksum or a read with fewer bytes than announced.
    public init(packet: [UInt8]) throws(OmronPacketError) {
        guard packet.count >= 8, Int(packet[0]) == packet.count else { throw .malformed(packet) }
        guard OmronPacket.xor(packet) == 0 else { throw .checksum(packet) }
        type = UInt16(packet[1]) << 8 | UInt16(packet[2])
        address = Int(packet[3]) << 8 | Int(packet[4])
        let count = Int(packet[5])
        switch type {
        case 0x8100:
            guard 6 + count <= packet.count - 2 else { throw .shortRead(packet) }
            data = Array(packet[6..<(6 + count)])
        case 0x8F00:
            data = [packet[6]]
        default:
            data = Array(packet[6..<(packet.count - 2)])
        }
    }

    /// A read response's packet (what a device sends; used by simulators and tests).
    public static func readPacket(address: Int, data: [UInt8]) -> [UInt8] {
        OmronPacket.command(0x8100, address: address, count: data.count, data: data)
    }
}

/// Why a response packet could not be used.
public enum OmronPacketError: Error, Sendable, Hashable, CustomStringConvertible {
    case malformed([UInt8])
    case checksum([UInt8])
    case shortRead([UInt8])

    public var description: String {
        switch self {
        case .malformed(let bytes):
            "malformed packet (length byte does not match its \(bytes.count) bytes): \(Self.hex(bytes))"
        case .checksum(let bytes): "packet checksum does not match (XOR of all bytes is not 0): \(Self.hex(bytes))"
        case .shortRead(let bytes): "read response shorter than the byte count it announces: \(Self.hex(bytes))"
        }
    }

    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { byte in
            let digits = String(byte, radix: 16, uppercase: true)
            return digits.count == 1 ? "0" + digits : digits
        }.joined(separator: " ")
    }
}

/// Puts a response packet together from its 16-byte pieces, which arrive on the receive channels (piece *n* on
/// channel *n*, in any order): once piece 0 (whose first byte is the packet length) and every piece the length
/// needs are there, the packet is complete.
public struct OmronPacketAssembler: Sendable, Hashable {
    private var pieces: [Int: [UInt8]] = [:]
    /// A device with one receive channel (HEM-7380T1's FE4A service) sends a packet's pieces one after another on
    /// it, rather than piece n on channel n.
    private let sequential: Bool

    /// - Parameter channels: how many receive channels the device has.
    public init(channels: Int = 4) {
        sequential = channels == 1
    }

    /// Adds the piece of `channel`; returns the packet once it is complete (and starts over).
    public mutating func add(_ piece: [UInt8], channel: Int) -> [UInt8]? {
        pieces[sequential ? pieces.count : channel] = piece
        guard let first = pieces[0], let length = first.first else { return nil }
        let needed = (Int(length) + OmronPacket.pieceSize - 1) / OmronPacket.pieceSize
        var packet: [UInt8] = []
        for index in 0..<max(1, needed) {
            guard let piece = pieces[index] else { return nil }
            packet += piece
        }
        pieces = [:]
        return Array(packet.prefix(Int(length)))
    }

    public mutating func reset() { pieces = [:] }
}
