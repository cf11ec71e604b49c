extension SFloat {
    /// The finite value times 10^`power`, computed from mantissa and exponent in one step so a unit change by a
    /// power of ten adds no float artefact (95 × 10⁻⁵ kg/L → exactly 95 mg/dL). Nil for a special value.
    public func doubleValue(timesPowerOfTen power: Int) -> Double? {
        special == nil ? IEEE11073Special.scaled(mantissa: mantissa, exponent: exponent + power) : nil
    }
}
