public import BridgeCore
public import BridgeFoundation
public import CareStore
public import Foundation

/// One blood-glucose reading as a Nightscout API v1 `entries` document of type `mbg` (a meter blood glucose):
///
/// ```json
/// {"type": "mbg", "mbg": 95, "date": 1764313800000, "dateString": "2025-11-28T08:10:00+01:00",
///  "device": "CareBridge (Acme GL50)", "identifier": "<the sample's CareBridge id>", "notes": "meal: preprandial"}
/// ```
///
/// - `mbg` is in mg/dL, as Nightscout stores every glucose value whatever its display units (the site converts for
///   display when set to mmol/L). A value in mmol/L is converted with the molar mass of glucose (×18.0156, the
///   store's exact factor) and rounded to the nearest whole mg/dL, halves away from zero (5.3 mmol/L → 95.48 →
///   95 mg/dL): Nightscout reads `mbg` as an integer (its query parser takes `mbg` with `parseInt`,
///   cgm-remote-monitor `lib/server/entries.js`).
/// - `date` (milliseconds since 1970) and `dateString` (the reading's time with its offset) are the reading's
///   own time: Nightscout v1 upserts an entry by its `sysTime` (from `dateString`) and `type`, so the same
///   reading sent again, by a retry or a second download, replaces itself instead of adding a copy.
///   `identifier` carries the sample's CareBridge id (Nightscout keeps it as its client sync identity).
/// - LO and HI: Nightscout has no marker for a meter's off-scale result (its `displayBg` shows `LOW`/`HIGH` only
///   for Dexcom CGM values 39 and 401, `lib/sandbox.js`). The reading keeps the meter's limit as `mbg` when the
///   device profile knows it, else 39 (LO) or 401 (HI), the values Nightscout and its uploaders use for "below"
///   and "above the range"; `notes` says `LO` / `HI` and `comparator` holds `<` / `>`, so the entry is never read
///   as a measured value by a person.
/// - Meal context (a Glucose Measurement Context's meal field) and the tester go into `notes`.
public struct NightscoutEntry: Sendable, Hashable {
    /// mg/dL Nightscout shows as `LOW` / `HIGH` (Dexcom's sentinels): used for a LO/HI of unknown limit.
    public static let unboundedLow = 39
    public static let unboundedHigh = 401

    /// The sample's CareBridge id (lowercase UUID).
    public var identifier: String
    /// Milliseconds since 1970 (UTC).
    public var date: Int64
    /// The reading's time in the bridge's zone, with its offset.
    public var dateString: String
    /// mg/dL, rounded to a whole number.
    public var mbg: Int
    public var device: String
    public var comparator: ValueComparator?
    public var notes: String?

    /// The entry of a stored blood-glucose reading; nil for another quantity type or a value that cannot be
    /// given in mg/dL.
    public init?(_ stored: StoredSample, zone: TimeZone) {
        let sample = stored.sample
        guard sample.type == .bloodGlucose else { return nil }
        identifier = stored.id.uuidString.lowercased()
        date = Int64((sample.start.timeIntervalSince1970 * 1000).rounded(.down))
        dateString = Timestamp.format(sample.start, in: zone)
        if sample.value.isFinite {
            guard let value = Self.milligramsPerDecilitre(sample.value, sample.unit) else { return nil }
            mbg = value
        } else {
            switch sample.comparator {
            case .lessThan?: mbg = Self.unboundedLow
            case .greaterThan?: mbg = Self.unboundedHigh
            case nil: return nil
            }
        }
        comparator = sample.comparator
        device = Self.deviceName(sample.source)
        var notes: [String] = []
        if let comparator = sample.comparator {
            let limit = sample.value.isFinite ? "\(mbg) mg/dL" : "the meter's range"
            notes.append("\(comparator.label) (\(comparator == .lessThan ? "below" : "above") \(limit))")
        }
        if let meal = sample.metadata["mealName"] { notes.append("meal: \(meal)") }
        if let tester = sample.metadata["testerName"], tester != "not available" {
            notes.append("tested by: \(tester)")
        }
        self.notes = notes.isEmpty ? nil : notes.joined(separator: "; ")
    }

    /// `value` in `unit` as whole mg/dL (halves away from zero); nil for a unit that is not a glucose
    /// concentration.
    public static func milligramsPerDecilitre(_ value: Double, _ unit: HealthUnit) -> Int? {
        guard let converted = unit.convert(value, to: .milligramPerDecilitre), converted.isFinite else { return nil }
        return Int(converted.rounded(.toNearestOrAwayFromZero))
    }

    /// `CareBridge (manufacturer model)` for a device's reading, `CareBridge (typed)` for one typed by a person.
    static func deviceName(_ source: SampleSource) -> String {
        guard source.kind == .device, let device = source.device else { return "CareBridge (typed)" }
        let name = [device.manufacturer, device.model].compactMap { $0 }.joined(separator: " ")
        return "CareBridge (\(name.isEmpty ? device.name ?? device.key : name))"
    }

    /// The document Nightscout stores.
    public var json: JSONValue {
        var object: JSONObject = [
            "type": .string("mbg"),
            "mbg": .int(mbg),
            "date": .int(Int(date)),
            "dateString": .string(dateString),
            "device": .string(device),
            "identifier": .string(identifier),
        ]
        if let comparator { object["comparator"] = .string(comparator.rawValue) }
        if let notes { object["notes"] = .string(notes) }
        return .object(object)
    }
}
