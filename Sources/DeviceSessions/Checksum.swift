/// A checksum some vendors append to the commands they accept, computed over bytes of a session template.
///
/// The CRC variants are the catalogued ones (parameters from the CRC RevEng catalogue); the value is
/// appended least significant byte first unless the name says `-be`.
public struct Checksum: RawRepresentable, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    public let rawValue: String

    public init?(rawValue: String) {
        guard Self.allCases.contains(where: { $0.rawValue == rawValue }) else { return nil }
        self.rawValue = rawValue
    }

    private init(_ name: String) { rawValue = name }

    /// XOR of every byte.
    public static let xor = Checksum("xor")
    /// Sum of every byte, modulo 256.
    public static let sum8 = Checksum("sum8")
    /// Two's complement of the 8-bit sum (the sum of the bytes and the checksum is 0).
    public static let sum8Negated = Checksum("sum8-negated")
    /// CRC-8/SMBUS: polynomial 0x07, initial 0x00, not reflected.
    public static let crc8 = Checksum("crc8")
    /// CRC-8/MAXIM-DOW: polynomial 0x31 reflected (0x8C), initial 0x00.
    public static let crc8Maxim = Checksum("crc8-maxim")
    /// CRC-16/CCITT-FALSE (IBM-3740): polynomial 0x1021, initial 0xFFFF, not reflected; appended little-endian.
    public static let crc16 = Checksum("crc16")
    /// CRC-16/CCITT-FALSE appended big-endian.
    public static let crc16BigEndian = Checksum("crc16-be")
    /// CRC-16/MODBUS: polynomial 0x8005 reflected (0xA001), initial 0xFFFF; appended little-endian.
    public static let crc16Modbus = Checksum("crc16-modbus")

    public static let allCases: [Checksum] = [
        .xor, .sum8, .sum8Negated, .crc8, .crc8Maxim, .crc16, .crc16BigEndian, .crc16Modbus,
    ]

    public var description: String { rawValue }

    /// The checksum bytes of `bytes`, in the order they are appended.
    public func bytes<Bytes: Collection<UInt8>>(of bytes: Bytes) -> [UInt8] {
        switch rawValue {
        case "xor": return [bytes.reduce(0, ^)]
        case "sum8": return [bytes.reduce(0, &+)]
        case "sum8-negated": return [0 &- bytes.reduce(0, &+)]
        case "crc8": return [Self.crc8(bytes)]
        case "crc8-maxim": return [Self.crc8Maxim(bytes)]
        case "crc16-modbus":
            let crc = Self.crc16Modbus(bytes)
            return [UInt8(crc & 0xFF), UInt8(crc >> 8)]
        case "crc16-be":
            let crc = Self.crc16CCITT(bytes)
            return [UInt8(crc >> 8), UInt8(crc & 0xFF)]
        default:
            let crc = Self.crc16CCITT(bytes)
            return [UInt8(crc & 0xFF), UInt8(crc >> 8)]
        }
    }

    static func crc8<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> UInt8 {
        var crc: UInt8 = 0
        for byte in bytes {
            crc ^= byte
            for _ in 0..<8 { crc = crc & 0x80 != 0 ? (crc << 1) ^ 0x07 : crc << 1 }
        }
        return crc
    }

    static func crc8Maxim<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> UInt8 {
        var crc: UInt8 = 0
        for byte in bytes {
            crc ^= byte
            for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0x8C : crc >> 1 }
        }
        return crc
    }

    static func crc16CCITT<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> UInt16 {
        var crc: UInt16 = 0xFFFF
        for byte in bytes {
            crc ^= UInt16(byte) << 8
            for _ in 0..<8 { crc = crc & 0x8000 != 0 ? (crc << 1) ^ 0x1021 : crc << 1 }
        }
        return crc
    }

    static func crc16Modbus<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> UInt16 {
        var crc: UInt16 = 0xFFFF
        for byte in bytes {
            crc ^= UInt16(byte)
            for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xA001 : crc >> 1 }
        }
        return crc
    }
}
