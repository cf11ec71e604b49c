/// IEEE 11073-20601 32-bit FLOAT: an 8-bit two's-complement exponent over a 24-bit two's-complement mantissa.
///
/// Special values are whole codes with exponent 0; `0x7FFFFFFF` is the finite −1 × 10¹²⁷, not +∞.
/// - SeeAlso: IEEE 11073-20601, FLOAT-Type; `gatt-reference.md` §2.
public struct MedFloat: IEEE11073Float {
    /// The 32-bit code as sent (after little-endian assembly).
    public let rawValue: UInt32

    public init(rawValue: UInt32) {
        self.rawValue = rawValue
    }

    /// Builds the code for `mantissa × 10^exponent`. Traps when out of range; meant for tests and encoders.
    public init(mantissa: Int, exponent: Int) {
        precondition((-8_388_608...8_388_607).contains(mantissa) && (-128...127).contains(exponent))
        rawValue =
            UInt32(UInt8(truncatingIfNeeded: exponent)) << 24 | UInt32(truncatingIfNeeded: mantissa) & 0x00FF_FFFF
    }

    /// Exponent E, −128…+127.
    public var exponent: Int { Int(Int8(truncatingIfNeeded: rawValue >> 24)) }

    /// Mantissa M, −2²³…2²³ − 1.
    public var mantissa: Int { Int(Int32(bitPattern: rawValue << 8) >> 8) }

    /// The special value this code stands for, if any.
    public var special: IEEE11073Special? {
        switch rawValue {
        case 0x007F_FFFF: .nan
        case 0x0080_0000: .nres
        case 0x007F_FFFE: .positiveInfinity
        case 0x0080_0002: .negativeInfinity
        case 0x0080_0001: .reserved
        default: nil
        }
    }
}

extension ByteReader {
    /// Reads an IEEE 11073 SFLOAT.
    public mutating func readSFloat(field: String) throws(GATTDecodingError) -> SFloat {
        SFloat(rawValue: try read(UInt16.self, field: field))
    }

    /// Reads an IEEE 11073 FLOAT.
    public mutating func readMedFloat(field: String) throws(GATTDecodingError) -> MedFloat {
        MedFloat(rawValue: try read(UInt32.self, field: field))
    }
}
