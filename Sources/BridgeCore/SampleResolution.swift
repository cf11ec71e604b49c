import Foundation
public import GATTDecoding

/// The step a device transmitted a quantity in (SFLOAT/FLOAT exponent, the Weight Scale's 0.005 kg, …), kept with
/// the sample as a metadata key so that exports present its value at that precision while the stored value stays
/// exact: 16.0 kPa is stored as 120.009852128 mmHg and exported as `120.0`, 160.00 lb as 72.5747792 kg and
/// `72.575`.
///
/// The key is `resolution.<type>` (one per quantity type, so the samples of one payload share their metadata),
/// its value the step in the **transmitted** unit as decimal text (`0.005`, `1e-1`). Metadata, not a column of the
/// sample table: the store keeps it as it keeps every other metadata key, and samples stored before it have none
/// (exported as before, exactly).
public enum SampleResolution {
    /// The metadata key for `type`.
    public static func key(_ type: QuantityType) -> String { "resolution." + type.rawValue }

    /// `1e<exponent>`: the step of an IEEE 11073 SFLOAT/FLOAT with this exponent.
    public static func text(exponent: Int) -> String {
        (-8...7).contains(exponent) ? sfloatSteps[exponent + 8] : "1e\(exponent)"
    }

    /// The step of a finite IEEE 11073 reading; nil for a special value, which has none.
    public static func text(of reading: some IEEE11073Float) -> String? {
        reading.special == nil ? text(exponent: reading.exponent) : nil
    }

    private static let sfloatSteps = (-8...7).map { "1e\($0)" }

    /// How many decimals a value with this step needs: 0.005 → 3, 0.1 → 1, 0.75 → 1, 0.0556 → 2, 1 or more → 0.
    public static func decimals(step: Double) -> Int? {
        guard step.isFinite, step > 0 else { return nil }
        // A step of exactly 10^-n needs n decimals; the tolerance keeps 1e-1 (0.1000000000000000055…) at 1.
        return max(0, Int((-log10(step) - 1e-9).rounded(.up)))
    }

    /// `value` with `decimals` decimals (plain decimal text, `.` as separator); nil when it is not finite.
    public static func format(_ value: Double, decimals: Int) -> String? {
        guard value.isFinite else { return nil }
        let text = String(format: "%.\(min(decimals, 17))f", value)
        return text == "-0" || text.hasPrefix("-0.") && text.dropFirst(3).allSatisfy({ $0 == "0" })
            ? String(text.dropFirst()) : text
    }
}
