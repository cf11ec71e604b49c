/// IEEE 11073-20601 16-bit SFLOAT: a 4-bit two's-complement exponent over a 12-bit two's-complement mantissa.
///
/// Special values are whole codes with exponent 0 (so `0xF7FF` is the finite value 204.7, not NaN).
/// - SeeAlso: IEEE 11073-20601, SFLOAT-Type; `gatt-reference.md` §2.
public struct SFloat: IEEE11073Float {
    /// The 16-bit code as sent (after little-endian assembly).
    public let rawValue: UInt16

    public init(rawValue: UInt16) {
        self.rawValue = rawValue
    }

    /// Builds the code for `mantissa × 10^exponent`. Traps when out of range; meant for tests and encoders.
    public init(mantissa: Int, exponent: Int) {
        precondition((-2048...2047).contains(mantissa) && (-8...7).contains(exponent))
        rawValue = UInt16(UInt16(truncatingIfNeeded: exponent) << 12) | UInt16(truncatingIfNeeded: mantissa) & 0x0FFF
    }

    /// Exponent E, −8…+7.
    public var exponent: Int { Int(Int16(bitPattern: rawValue) >> 12) }

    /// Mantissa M, −2048…+2047.
    public var mantissa: Int { Int(Int16(bitPattern: rawValue << 4) >> 4) }

    /// The special value this code stands for, if any.
    public var special: IEEE11073Special? {
        switch rawValue {
        case 0x07FF: .nan
        case 0x0800: .nres
        case 0x07FE: .positiveInfinity
        case 0x0802: .negativeInfinity
        case 0x0801: .reserved
        default: nil
        }
    }
}

/// The special values shared by SFLOAT and FLOAT.
public enum IEEE11073Special: String, Sendable, Hashable, CaseIterable {
    case nan = "NaN"
    case nres = "NRes"
    case positiveInfinity = "+INF"
    case negativeInfinity = "-INF"
    case reserved = "reserved"

    /// Exact powers of ten that a `Double` holds without rounding.
    private static let exactPowers: [Double] = (0...22).map { exponent in
        var value = 1.0
        for _ in 0..<exponent { value *= 10 }
        return value
    }

    /// `mantissa × 10^exponent` as the nearest `Double` (never `189 × 0.1 = 18.900000000000002`).
    static func scaled(mantissa: Int, exponent: Int) -> Double {
        if exponent >= 0, exponent <= 22 { return Double(mantissa) * exactPowers[exponent] }
        if exponent < 0, exponent >= -22 { return Double(mantissa) / exactPowers[-exponent] }
        // Outside the exactly representable range let the correctly rounded parser do the work.
        return Double("\(mantissa)e\(exponent)") ?? .nan
    }
}
