/// The range of values a quantity can plausibly take in a living patient, per quantity type, in the type's
/// canonical unit. A device sample outside it is quarantined; a reading typed in by hand outside it is refused.
///
/// The ranges are deliberately wider than any clinical alarm limit: they catch device and decoding errors
/// (a heart rate of 179 200 000 /min from a byte-order quirk, a mean arterial pressure of 0 mmHg, a
/// thermometer's 375 °C), never a sick patient. The reasoning and references for each row are in the README
/// ("Plausibility and quarantine"). A device profile may narrow or widen a row for its device
/// (`plausibility` in the profile).
public struct PlausibilityTable: Sendable, Hashable {
    /// Range per type; a type without an entry accepts every finite value.
    public var ranges: [QuantityType: ClosedRange<Double>]

    public init(ranges: [QuantityType: ClosedRange<Double>]) {
        self.ranges = ranges
    }

    /// The shipped table (canonical units: kg, kg/m², m, %, kcal, Ω, °C, /min, ms, mm[Hg], mg/dL).
    public static let standard = PlausibilityTable(ranges: [
        .bodyMass: 0.2...650,
        .leanBodyMass: 0.1...650,
        .bodyWaterMass: 0.1...650,
        .muscleMass: 0.1...650,
        .bodyMassIndex: 5...200,
        .height: 0.2...2.8,
        .bodyFatPercentage: 1...80,
        .basalEnergyBurned: 100...10_000,
        .bodyImpedance: 50...2_000,
        .bodyTemperature: 25...45,
        .heartRate: 20...300,
        .rrInterval: 150...3_000,
        .bloodPressureSystolic: 40...300,
        .bloodPressureDiastolic: 20...200,
        .meanArterialPressure: 30...250,
        .bloodGlucose: 10...1_500,
        .oxygenSaturation: 50...100,
    ])

    /// The range for `type` (nil: any finite value).
    public func range(for type: QuantityType) -> ClosedRange<Double>? { ranges[type] }

    /// This table with `overrides` replacing its rows (a profile narrowing or widening it for its device).
    public func overriding(_ overrides: [QuantityType: ClosedRange<Double>]) -> PlausibilityTable {
        PlausibilityTable(ranges: ranges.merging(overrides) { _, new in new })
    }
}
