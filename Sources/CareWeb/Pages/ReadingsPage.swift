import BridgeCore
import CarePlan
import CareStore
import Foundation
import SampleExport

/// The Readings screen of one patient: the readings of a period (of one type, or all), each with what it says
/// beside its value — quarantined (kept, never used), outside the device's range (LO/HI), device status flags,
/// released from quarantine (by whom, why), typed in (by whom) — and the form that types one in.
struct ReadingsPage {
    /// At most this many readings on a page; the page says when the period holds more.
    static let limit = 1_000

    let patient: Patient
    let period: DayPeriod
    let type: QuantityType?
    let quarantinedOnly: Bool
    /// Up to ``limit`` + 1 readings (one more says there are more), oldest first.
    let readings: [StoredSample]
    let reviews: [UUID: [SampleReview]]
    let user: CareUser
    let now: Date
    /// The plan's zone: the period's days.
    let zone: TimeZone
    /// How the user reads the times (their zone; typed-in times are read in it too).
    let shown: ShownTime

    /// The page's template values; `entry` holds what a refused entry form had, to show it again.
    func context(error: String? = nil, entry: [String: String] = [:]) -> [String: Any] {
        let listed = readings.prefix(Self.limit)
        var values: [String: Any] = [
            "patientName": patient.name, "patientID": patient.id, "onReadings": true,
            "from": period.first.key, "to": period.last.key,
            "periodLabel": "\(period.first.label(zone: zone)) to \(period.last.label(zone: zone))",
            "types": Self.filterTypes.map { type -> [String: Any] in
                ["value": type.rawValue, "label": type.title.capitalizedFirst, "selected": type == self.type]
            },
            "quarantinedOnly": quarantinedOnly, "hasRows": !listed.isEmpty,
            "tableCaption": "Readings of \(patient.name), oldest first",
            "rows": Self.rows(Array(listed), reviews: reviews, user: user, shown: self.shown),
            "entryTypes": Self.entryTypes.map { value, label -> [String: Any] in
                ["value": value, "label": label, "selected": value == (entry["type"] ?? "bodyMass")]
            },
            "entryReading": entry["reading"] ?? "", "entryNote": entry["note"] ?? "",
            "entryAt": entry["at"] ?? Self.localInput(now, zone: shown.zone),
            "entryZone": "\(ShownTime.placeName(shown.zone)) time",
        ]
        if let note = shown.note(patientName: patient.name, at: now) { values["zoneNote"] = note }
        if readings.count > Self.limit {
            values["truncated"] =
                "More than \(Self.limit) readings in this period: the first \(Self.limit) are shown. "
                + "Choose a type or fewer days."
        }
        if let error { values["error"] = error }
        return values
    }

    /// The table's rows in the readings' order; a systolic and a diastolic of one measurement (same instant and
    /// source, both plain values) become one row, `128/82 mmHg`, as people write a blood pressure.
    static func rows(
        _ readings: [StoredSample],
        reviews: [UUID: [SampleReview]],
        user: CareUser,
        shown: ShownTime
    ) -> [[String: Any]] {
        func key(_ sample: QuantitySample) -> String {
            "\(sample.start.timeIntervalSince1970)|\(sample.source.device?.address ?? sample.source.kind.rawValue)"
        }
        func plain(_ stored: StoredSample) -> Bool { !stored.sample.isQuarantined && stored.sample.comparator == nil }
        var diastolic: [String: StoredSample] = [:]
        for stored in readings where stored.sample.type == .bloodPressureDiastolic && plain(stored) {
            diastolic[key(stored.sample)] = stored
        }
        var pairs: [UUID: StoredSample] = [:]
        for stored in readings where stored.sample.type == .bloodPressureSystolic && plain(stored) {
            if let low = diastolic.removeValue(forKey: key(stored.sample)) { pairs[stored.id] = low }
        }
        let paired = Set(pairs.values.map(\.id))
        return readings.compactMap { stored -> [String: Any]? in
            guard !paired.contains(stored.id) else { return nil }
            var row = row(stored, reviews: reviews[stored.id] ?? [], user: user, shown: shown)
            if let low = pairs[stored.id] {
                let number = { (sample: QuantitySample) in
                    DisplayQuantity.number(sample.value, decimals: DisplayQuantity.decimals(of: sample))
                }
                row["type"] = "Blood pressure"
                row["value"] =
                    "\(number(stored.sample))/\(number(low.sample)) \(DisplayQuantity.symbol(stored.sample.unit))"
                var notes = row["notes"] as? [String] ?? []
                for note in Self.notes(low, reviews: reviews[low.id] ?? []) where !notes.contains(note) {
                    notes.append(note)
                }
                row["notes"] = notes
            }
            return row
        }
    }

    /// One reading as a table row (and the review page's values).
    static func row(
        _ stored: StoredSample,
        reviews: [SampleReview],
        user: CareUser,
        shown: ShownTime
    ) -> [String: Any] {
        let sample = stored.sample
        var row: [String: Any] = [
            "id": stored.id.uuidString.lowercased(), "type": sample.type.title.capitalizedFirst,
            "when": shown.dateTime(sample.start),
            "value": value(sample), "source": source(stored),
            "notes": notes(stored, reviews: reviews),
        ]
        if sample.isQuarantined {
            row["statusClass"] = "quarantined"
            if user.mayReviewReadings { row["canReview"] = true }
        } else if sample.comparator != nil || !SampleScreening.flags(of: sample).isEmpty {
            row["statusClass"] = "flagged"
        }
        return row
    }

    private static func source(_ stored: StoredSample) -> String {
        let sample = stored.sample
        if sample.source.kind == .manual {
            return sample.metadata[enteredByKey].map { "typed in by \($0)" } ?? "typed in"
        }
        let device = sample.source.device
        return device?.name ?? device?.model ?? device?.address ?? device?.serial ?? "a device"
    }

    /// What a reading says beside its value, each as a sentence.
    static func notes(_ stored: StoredSample, reviews: [SampleReview]) -> [String] {
        let sample = stored.sample
        var notes: [String] = []
        if let reason = sample.quarantineReason { notes.append("Quarantined, not used: \(reason).") }
        if let comparator = sample.comparator {
            notes.append("Outside the device's measuring range (\(comparator.label)): not a plain value.")
        }
        let flags = SampleScreening.flags(of: sample)
        if !flags.isEmpty { notes.append("Device says: \(flags.joined(separator: ", ")).") }
        if let release = stored.releaseReason {
            let by = reviews.last { $0.action == .release }?.author.map { " by \($0)" } ?? ""
            notes.append("Released from quarantine\(by): \(release).")
        }
        if let note = sample.metadata["note"] { notes.append("Note: \(note)") }
        return notes
    }

    /// `72.6 kg`; `< 1.1 mmol/L (LO)` at the meter's limit, `LO (limit unknown) mg/dL` without one; a
    /// quarantined value in brackets and said to be quarantined, never a plain number.
    static func value(_ sample: QuantitySample) -> String {
        var text: String
        if let comparator = sample.comparator {
            text =
                sample.value.isFinite
                ? "\(comparator.rawValue) \(DisplayQuantity.value(of: sample)) (\(comparator.label))"
                : "\(comparator.label) (limit unknown) \(DisplayQuantity.symbol(sample.unit))"
        } else {
            text = DisplayQuantity.value(of: sample)
        }
        if sample.isQuarantined { text = "[\(text)] quarantined" }
        return text
    }

    /// The metadata key that names the care app user who typed a reading in.
    static let enteredByKey = "enteredBy"

    /// The types the filter offers: what devices and people record for a patient.
    static let filterTypes: [QuantityType] = [
        .bodyMass, .bodyFatPercentage, .bodyMassIndex, .bloodPressureSystolic, .bloodPressureDiastolic,
        .meanArterialPressure, .heartRate, .bodyTemperature, .bloodGlucose, .oxygenSaturation,
    ]

    /// The types the entry form offers (`bloodPressure` is both values at once, `120/80 mmHg`).
    static let entryTypes: [(String, String)] = [
        ("bodyMass", "Body weight"), ("bloodPressure", "Blood pressure"), ("heartRate", "Heart rate"),
        ("bodyTemperature", "Body temperature"), ("bloodGlucose", "Blood glucose"),
        ("oxygenSaturation", "Oxygen saturation"),
    ]

    /// `2026-11-27T09:30` in the zone, as a `datetime-local` input shows it.
    static func localInput(_ date: Date, zone: TimeZone) -> String {
        let wall = WallClockTime(date, in: zone)
        return String(format: "%04d-%02d-%02dT%02d:%02d", wall.year, wall.month, wall.day, wall.hour, wall.minute)
    }
}

extension String {
    /// The text with its first letter in upper case (`Body mass`).
    var capitalizedFirst: String { prefix(1).uppercased() + dropFirst() }
}
