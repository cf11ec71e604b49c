import BridgeCore
import CareStore
import Foundation
import SampleExport

/// The care report's "Readings" table: the period's stored readings in the units people use, at the resolution
/// the device sent them in (`128 mmHg`, `70 bpm`, `72.5 kg`).
///
/// A device that streams (a heart-rate strap: one heart rate a second and its RR intervals) would fill hundreds
/// of pages with rows a reader cannot use, so more than ``streamThreshold`` plain readings of one measure from one
/// device in one day become one row: the time span, the range and mean, and how many readings it stands for.
/// Readings that say something on their own are never folded into such a row: quarantined, released, out of
/// range (LO/HI), deleted, typed in or annotated readings are listed one by one with their flags.
struct ReadingsTable {
    /// More plain readings than this of one measure from one device in one day are summarised in one row (48: one
    /// every half hour on average; a strap sends 86,400 heart rates a day, a cuff or a scale a handful).
    static let streamThreshold = 48

    static let note =
        "Every reading stored for the period. Out-of-range results (LO/HI) are marked with their comparator; "
        + "quarantined readings (kept, never used) are marked and shown in brackets. A device's stream of more "
        + "than \(streamThreshold) readings of one measure in a day (a heart-rate strap) is one row per day with "
        + "its range and mean; flagged readings are always listed one by one."

    static let flaggedNote =
        "Readings that need a look, one by one: out-of-range results (LO/HI, marked with their comparator), "
        + "quarantined readings (kept, never used; in brackets), readings released from quarantine, deleted or "
        + "annotated. The per-day table has every other reading; --readings lists them all."

    /// The flag of a reading typed in by a person (on its own, not a reason to list the reading by itself).
    static let typedIn = "typed in"

    /// A row of the table, placed by its start (then by when it was made).
    private struct Entry {
        var start: Date
        var order: Int
        var cells: [String]
        var marked: Bool
    }

    /// The plain readings of one device, measure and local day: held one by one up to ``streamThreshold``, then
    /// only what the summary row shows.
    private struct Group {
        var samples: [QuantitySample]
        var count = 0
        var first: QuantitySample
        var lastStart: Date
        var minimum: Double
        var maximum: Double
        var sum = 0.0
        var decimals = 0

        init(_ sample: QuantitySample) {
            samples = []
            first = sample
            lastStart = sample.start
            minimum = sample.value
            maximum = sample.value
        }

        mutating func add(_ sample: QuantitySample) {
            count += 1
            if sample.start < first.start { first = sample }
            lastStart = max(lastStart, sample.start)
            minimum = min(minimum, sample.value)
            maximum = max(maximum, sample.value)
            sum += sample.value
            decimals = max(decimals, DisplayQuantity.decimals(of: sample))
            if count <= streamThreshold {
                samples.append(sample)
            } else if !samples.isEmpty {
                samples = []  // a summary row from here on
            }
        }
    }

    private let zone: TimeZone
    /// Only readings with a flag (the report's default, beside the per-day table): plain readings, streams and
    /// readings only typed in are left to the per-day table.
    private let flaggedOnly: Bool
    /// Flagged and manual readings, one row each, in the order read.
    private var entries: [Entry] = []
    private var groups: [String: Group] = [:]
    /// Group keys in the order their groups first appear.
    private var groupOrder: [String] = []

    /// An empty table; ``add(_:)`` the period's readings in (start, id) order, then ``table()``. What it holds is
    /// what the table shows: a device's stream is a few numbers per day, not its readings.
    init(zone: TimeZone, flaggedOnly: Bool = false) {
        self.zone = zone
        self.flaggedOnly = flaggedOnly
    }

    /// How many readings are held one by one (rows of their own, and the groups not yet past
    /// ``streamThreshold``): what a stream adds to it stops at the threshold.
    var heldReadings: Int { entries.count + groups.values.reduce(0) { $0 + $1.samples.count } }

    /// Adds one reading of the period: a sample, or a blood pressure's two halves (one row, `164/98 mmHg`).
    mutating func add(_ reading: PressurePairer.Reading) {
        switch reading {
        case .single(let stored):
            add(stored)
        case .pair(let systolic, let diastolic):
            var flags = Self.flags(of: systolic)
            for flag in Self.flags(of: diastolic) where !flags.contains(flag) { flags.append(flag) }
            guard !flaggedOnly || flags.contains(where: { $0 != Self.typedIn }) else { return }
            let sample = systolic.sample
            entries.append(
                Entry(
                    start: sample.start,
                    order: entries.count,
                    cells: [
                        ReportBuilder.short(sample.start, zone: zone), "blood pressure",
                        Self.pressure(systolic: sample, diastolic: diastolic.sample), Self.deviceName(sample),
                        flags.joined(separator: "; "),
                    ],
                    marked: false
                )
            )
        }
    }

    /// Adds one sample of the period.
    mutating func add(_ stored: StoredSample) {
        let sample = stored.sample
        let flags = Self.flags(of: stored)
        if flaggedOnly {
            if flags.contains(where: { $0 != Self.typedIn }) {
                entries.append(row(sample, flags: flags, order: entries.count))
            }
            return
        }
        // Plain device readings by device, measure and local day.
        if flags.isEmpty, let device = sample.source.device {
            let day = ReportBuilder.short(sample.start, zone: zone).prefix(10)
            let key = "\(device.key)\u{1F}\(sample.type.rawValue)\u{1F}\(day)"
            if groups[key] == nil {
                groupOrder.append(key)
                groups[key] = Group(sample)
            }
            groups[key]?.add(sample)
            return
        }
        entries.append(row(sample, flags: flags, order: entries.count))
    }

    /// A reading on its own row; flagged readings are marked (quarantined or out of range).
    private func row(_ sample: QuantitySample, flags: [String], order: Int) -> Entry {
        Entry(
            start: sample.start,
            order: order,
            cells: [
                ReportBuilder.short(sample.start, zone: zone), sample.type.title, Self.value(of: sample),
                Self.deviceName(sample), flags.joined(separator: "; "),
            ],
            marked: sample.isQuarantined || sample.comparator != nil
        )
    }

    /// The table of the readings added.
    func table() -> ReportData.Table {
        var entries = entries
        for key in groupOrder {
            guard let group = groups[key] else { continue }
            guard group.count > Self.streamThreshold else {
                for sample in group.samples.sorted(by: { $0.start < $1.start }) {
                    entries.append(row(sample, flags: [], order: entries.count))
                }
                continue
            }
            let first = group.first
            let until = ReportBuilder.short(group.lastStart, zone: zone).suffix(5)
            entries.append(
                Entry(
                    start: first.start,
                    order: entries.count,
                    cells: [
                        "\(ReportBuilder.short(first.start, zone: zone))–\(until)", first.type.title,
                        Self.summary(
                            minimum: group.minimum,
                            maximum: group.maximum,
                            mean: group.sum / Double(group.count),
                            decimals: group.decimals,
                            unit: first.unit
                        ),
                        Self.deviceName(first), "\(group.count) readings, one row",
                    ],
                    marked: false
                )
            )
        }
        entries.sort { ($0.start, $0.order) < ($1.start, $1.order) }
        var marked: Set<[Int]> = []
        for (row, entry) in entries.enumerated() where entry.marked {
            marked.insert([row, 2])
            marked.insert([row, 4])
        }
        return ReportData.Table(
            title: flaggedOnly ? "Flagged readings" : "Readings",
            note: flaggedOnly ? Self.flaggedNote : Self.note,
            headers: ["Time", "Measure", "Value", "Device", "Flags"],
            rows: entries.map(\.cells),
            marked: marked
        )
    }

    /// What makes a reading worth its own row; empty for a plain reading.
    static func flags(of stored: StoredSample) -> [String] {
        let sample = stored.sample
        var flags: [String] = []
        if sample.source.kind == .manual { flags.append(typedIn) }
        if let reason = sample.quarantineReason { flags.append("QUARANTINED: \(reason)") }
        if let release = stored.releaseReason { flags.append("released from quarantine: \(release)") }
        if let comparator = sample.comparator {
            flags.append("OUT OF RANGE (\(comparator.label), \(comparator.interpretationDisplay.lowercased()))")
        }
        if stored.deletedDate != nil { flags.append("deleted") }
        if let note = sample.metadata["note"] { flags.append("note: \(note)") }
        return flags
    }

    /// `128 mmHg`; `< 20 mg/dL (LO)` or `LO` for an out-of-range result; in brackets when quarantined.
    static func value(of sample: QuantitySample) -> String {
        var value = DisplayQuantity.value(of: sample)
        if let comparator = sample.comparator {
            value = sample.value.isFinite ? "\(comparator.rawValue) \(value) (\(comparator.label))" : comparator.label
        }
        return sample.isQuarantined ? "[\(value)]" : value
    }

    /// `164/98 mmHg`: each half at the resolution it was sent in.
    static func pressure(systolic: QuantitySample, diastolic: QuantitySample) -> String {
        let number = { (sample: QuantitySample) in
            DisplayQuantity.number(sample.value, decimals: DisplayQuantity.decimals(of: sample))
        }
        return "\(number(systolic))/\(number(diastolic)) \(DisplayQuantity.symbol(systolic.unit))"
    }

    /// `58–84 bpm, mean 70`: at the finest resolution any of the readings was sent in (`decimals`).
    static func summary(minimum: Double, maximum: Double, mean: Double, decimals: Int, unit: HealthUnit) -> String {
        let number = { (value: Double) in DisplayQuantity.number(value, decimals: decimals) }
        let low = number(minimum)
        let high = number(maximum)
        let range = low == high ? low : "\(low)–\(high)"
        return "\(range) \(DisplayQuantity.symbol(unit)), mean \(number(mean))"
    }

    static func deviceName(_ sample: QuantitySample) -> String {
        sample.source.device.map { $0.name ?? $0.model ?? $0.address ?? "device" } ?? "manual"
    }
}
