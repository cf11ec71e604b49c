public import BridgeFoundation

/// What IEEE 11073-20601 SFLOAT (``SFloat``) and FLOAT (``MedFloat``) share: a value `mantissa × 10^exponent`,
/// or one of the special values, which are whole codes with exponent 0.
/// - SeeAlso: IEEE 11073-20601, SFLOAT-Type and FLOAT-Type; `gatt-reference.md` §2.
public protocol IEEE11073Float: Sendable, Hashable, CustomStringConvertible {
    /// Exponent E.
    var exponent: Int { get }
    /// Mantissa M.
    var mantissa: Int { get }
    /// The special value this code stands for, if any.
    var special: IEEE11073Special? { get }
}

extension IEEE11073Float {
    /// The finite value, or nil for a special value.
    public var doubleValue: Double? {
        special == nil ? IEEE11073Special.scaled(mantissa: mantissa, exponent: exponent) : nil
    }

    /// The value as it appears in decoded fields: a number, or the special value's name.
    public var field: JSONValue {
        if let special { return .string(special.rawValue) }
        return .double(IEEE11073Special.scaled(mantissa: mantissa, exponent: exponent))
    }

    public var description: String { special?.rawValue ?? "\(mantissa)e\(exponent)" }
}
