/// A packet of Viatom's command protocol (Wellue O2Ring, Checkme O2 and their relatives), spoken over one write and
/// one notify characteristic of the vendor service 14839AC4-7D7E-415C-9A42-167340CF2339.
///
/// As read by MackeyStingray/o2r (`o2r/o2pkt.py`, `o2r/defines.py`, commit e8ad57f9): a request is `AA`, the
/// command, the command XOR `FF`, a block number (u16le), the data length (u16le), the data, and a CRC-8 (polynomial
/// 0x07, initial 0: CRC-8/SMBUS) over every byte before it. A response is `55`, a status (`00` done), the status
/// XOR `FF`, the block, the length, the data and the CRC; a long response arrives in several notifications.
public struct ViatomPacket: Sendable, Hashable {
    /// A command: an open set of the device's command bytes.
    public struct Command: RawRepresentable, Sendable, Hashable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }

        /// Opens a file by name (data: the name and a NUL); the response's data is the file size (u32le).
        public static let fileOpen = Command(rawValue: 0x03)
        /// Reads the file block given as the block number; the data are the block's bytes.
        public static let fileRead = Command(rawValue: 0x04)
        public static let fileClose = Command(rawValue: 0x05)
        /// The device's information as JSON, with `FileList` naming its stored recordings.
        public static let info = Command(rawValue: 0x14)
        public static let ping = Command(rawValue: 0x15)
        /// The live values: SpO2 (byte 0), pulse rate (byte 1), battery, charging, motion, signal.
        public static let readSensors = Command(rawValue: 0x17)
    }

    /// Why bytes are not a response.
    public enum Failure: Error, Sendable, Hashable, CustomStringConvertible {
        case truncated(length: Int)
        case notAResponse(first: UInt8)
        case statusCheck(status: UInt8, check: UInt8)
        case length(expected: Int, actual: Int)
        case checksum(expected: UInt8, actual: UInt8)

        public var description: String {
            switch self {
            case .truncated(let length): "\(length) bytes are shorter than a response header (8)"
            case .notAResponse(let first): "starts with \(Self.hex(first)), not 55"
            case .statusCheck(let status, let check):
                "status \(Self.hex(status)) and its check \(Self.hex(check)) do not XOR to FF"
            case .length(let expected, let actual): "\(actual) bytes where the header announces \(expected)"
            case .checksum(let expected, let actual): "CRC-8 is \(Self.hex(actual)), computed \(Self.hex(expected))"
            }
        }

        static func hex(_ byte: UInt8) -> String {
            let text = String(byte, radix: 16, uppercase: true)
            return text.count == 1 ? "0" + text : text
        }
    }

    /// The response's status: 0 when the command was done.
    public var status: UInt8
    public var block: UInt16
    public var data: [UInt8]

    /// The bytes of a request.
    public static func request(_ command: Command, block: UInt16 = 0, data: [UInt8] = []) -> [UInt8] {
        var bytes: [UInt8] = [0xAA, command.rawValue, command.rawValue ^ 0xFF]
        bytes += [UInt8(block & 0xFF), UInt8(block >> 8), UInt8(data.count & 0xFF), UInt8(data.count >> 8)]
        bytes += data
        return bytes + Checksum.crc8.bytes(of: bytes)
    }

    /// The length of the whole response whose first notification is `first`, nil when it is shorter than a header.
    public static func responseLength(_ first: [UInt8]) -> Int? {
        guard first.count >= 7 else { return nil }
        return (Int(first[5]) | Int(first[6]) << 8) + 8
    }

    /// Reads one complete response (its notifications joined).
    /// - Throws: ``Failure`` naming what does not hold; a response whose CRC fails is never read.
    public init(response bytes: [UInt8]) throws(Failure) {
        guard bytes.count >= 8 else { throw .truncated(length: bytes.count) }
        guard bytes[0] == 0x55 else { throw .notAResponse(first: bytes[0]) }
        guard bytes[1] ^ bytes[2] == 0xFF else { throw .statusCheck(status: bytes[1], check: bytes[2]) }
        let expected = Self.responseLength(bytes) ?? 0
        guard bytes.count == expected else { throw .length(expected: expected, actual: bytes.count) }
        let crc = Checksum.crc8.bytes(of: bytes.dropLast())[0]
        guard crc == bytes[bytes.count - 1] else { throw .checksum(expected: crc, actual: bytes[bytes.count - 1]) }
        status = bytes[1]
        block = UInt16(bytes[3]) | UInt16(bytes[4]) << 8
        data = Array(bytes[7..<bytes.count - 1])
    }
}
