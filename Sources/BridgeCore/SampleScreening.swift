import Foundation

/// The safety stage every device sample passes before it is stored: it puts the device's limit on LO/HI
/// results and quarantines what cannot be a valid reading.
///
/// - Out of range (a sample with a ``ValueComparator``): the value becomes the device's limit from
///   ``measurementRanges`` when the profile knows it (a LO glucose on a 20–600 mg/dL meter is `< 20 mg/dL`);
///   without one it stays −∞/+∞. Never quarantined for its value: a LO is a reading.
/// - Implausible: a finite value outside ``plausibility`` is quarantined with the reason.
/// - Invalid by the device's own status: a status flag in ``invalidatingFlags`` (glucose sensor malfunction,
///   PLX sensor disconnected, …) quarantines the sample and names the flag.
///
/// Pure and deterministic: the same sample and configuration always give the same result.
public struct SampleScreening: Sendable, Hashable {
    public var plausibility: PlausibilityTable
    /// The device's measurement range per type, canonical unit (profile `measurementRange`).
    public var measurementRanges: [QuantityType: ClosedRange<Double>]

    public init(
        plausibility: PlausibilityTable = .standard,
        measurementRanges: [QuantityType: ClosedRange<Double>] = [:]
    ) {
        self.plausibility = plausibility
        self.measurementRanges = measurementRanges
    }

    /// The metadata keys decoders put status flags under (comma-separated names).
    public static let statusKeys = ["sensorStatus", "measurementStatus", "deviceAndSensorStatus", "status"]

    /// Status flags that say the value itself is not valid, by the flag names the decoders use.
    public static let invalidatingFlags: Set<String> = [
        // Glucose Sensor Status Annunciation (GLS 1.0 §3.106): the strip or sensor did not measure properly.
        "sensor malfunction", "sample size insufficient", "strip insertion error", "strip type incorrect",
        "sensor temperature too high", "sensor temperature too low", "sensor read interrupted",
        "general device fault",
        // PLX Device and Sensor Status (PLXS 1.0): no valid signal from the patient.
        "equipment malfunction detected", "sensor unconnected to user", "sensor displaced",
        "sensor malfunctioning", "sensor disconnected",
        // PLX Measurement Status.
        "measurement unavailable", "questionable measurement detected", "invalid measurement detected",
        // Body Composition: Body Fat 0xFFFF.
        "measurement unsuccessful",
    ]

    /// The status flags a sample carries, in the order its metadata lists them (status keys sorted).
    public static func flags(of sample: QuantitySample) -> [String] { flags(in: sample.metadata) }

    /// The status flags in a sample's metadata (see ``flags(of:)``).
    static func flags(in metadata: [String: String]) -> [String] {
        // The sample's few metadata keys compared with the four status keys, not four hashed lookups: most
        // samples carry none of them (a heart-rate sample only its sensor contact), and every sample is screened.
        guard metadata.keys.contains(where: statusKeys.contains) else { return [] }
        var flags: [String] = []
        for key in statusKeys {
            guard let text = metadata[key] else { continue }
            for name in text.split(separator: ",") {
                let flag = name.trimmingCharacters(in: .whitespaces)
                if !flag.isEmpty, flag != "none" { flags.append(flag) }
            }
        }
        return flags
    }

    /// Applies the limits and the quarantine rules to one sample.
    public func screen(_ sample: inout SampleDraft) {
        if let comparator = sample.comparator {
            if !sample.value.isFinite, let range = measurementRanges[sample.type] {
                let limit = comparator == .lessThan ? range.lowerBound : range.upperBound
                sample.value = limit
                sample.transmittedValue = limit
                sample.transmittedUnit = sample.unit
            }
        } else if let range = plausibility.range(for: sample.type), !range.contains(sample.value) {
            sample.quarantineReason =
                "implausible \(sample.type.title) \(Self.format(sample.value)) \(sample.unit): outside "
                + "\(Self.format(range.lowerBound))–\(Self.format(range.upperBound)) \(sample.unit)"
            return
        }
        let invalid = Self.flags(in: sample.metadata).filter(Self.invalidatingFlags.contains)
        if !invalid.isEmpty {
            sample.quarantineReason = "device status says the value is invalid: " + invalid.joined(separator: ", ")
        }
    }

    /// A number for messages: up to two decimals, no trailing `.0`.
    public static func format(_ value: Double) -> String {
        guard value.isFinite else { return value < 0 ? "-∞" : "+∞" }
        let rounded = (value * 100).rounded() / 100
        return rounded == rounded.rounded() && abs(rounded) < 1e15 ? String(Int64(rounded)) : String(rounded)
    }
}
