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
enum ReadingsTable {
    /// More plain readings than this of one measure from one device in one day are summarised in one row (48: one
    /// every half hour on average; a strap sends 86,400 heart rates a day, a cuff or a scale a handful).
    static let streamThreshold = 48

    static let note =
        "Every reading stored for the period. Out-of-range results (LO/HI) are marked with their comparator; "
        + "quarantined readings (kept, never used) are marked and shown in brackets. A device's stream of more "
        + "than \(streamThreshold) readings of one measure in a day (a heart-rate strap) is one row per day with "
        + "its range and mean; flagged readings are always listed one by one."

    static func build(_ samples: [StoredSample], zone: TimeZone) -> ReportData.Table {
        struct Entry {
            var start: Date
            var order: Int
            var cells: [String]
            var marked: Bool
        }
        var entries: [Entry] = []
        // A reading on its own row; flagged readings are marked (quarantined or out of range).
        func appendRow(_ sample: QuantitySample, flags: [String]) {
            entries.append(
                Entry(
                    start: sample.start,
                    order: entries.count,
                    cells: [
                        ReportBuilder.short(sample.start, zone: zone), sample.type.title, value(of: sample),
                        deviceName(sample), flags.joined(separator: "; "),
                    ],
                    marked: sample.isQuarantined || sample.comparator != nil
                )
            )
        }
        // Plain device readings by device, measure and local day, in the order their groups first appear.
        var groups: [String: [QuantitySample]] = [:]
        var groupOrder: [String] = []
        for stored in samples {
            let sample = stored.sample
            let flags = flags(of: stored)
            if flags.isEmpty, let device = sample.source.device {
                let day = ReportBuilder.short(sample.start, zone: zone).prefix(10)
                let key = "\(device.key)\u{1F}\(sample.type.rawValue)\u{1F}\(day)"
                if groups[key] == nil { groupOrder.append(key) }
                groups[key, default: []].append(sample)
                continue
            }
            appendRow(sample, flags: flags)
        }
        for key in groupOrder {
            let group = (groups[key] ?? []).sorted { $0.start < $1.start }
            guard group.count > streamThreshold, let first = group.first, let last = group.last else {
                for sample in group { appendRow(sample, flags: []) }
                continue
            }
            let until = ReportBuilder.short(last.start, zone: zone).suffix(5)
            entries.append(
                Entry(
                    start: first.start,
                    order: entries.count,
                    cells: [
                        "\(ReportBuilder.short(first.start, zone: zone))–\(until)", first.type.title,
                        summary(of: group),
                        deviceName(first), "\(group.count) readings, one row",
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
            title: "Readings",
            note: note,
            headers: ["Time", "Measure", "Value", "Device", "Flags"],
            rows: entries.map(\.cells),
            marked: marked
        )
    }

    /// What makes a reading worth its own row; empty for a plain reading.
    static func flags(of stored: StoredSample) -> [String] {
        let sample = stored.sample
        var flags: [String] = []
        if sample.source.kind == .manual { flags.append("typed in") }
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

    /// `58–84 bpm, mean 70`: at the finest resolution any of the readings was sent in.
    static func summary(of group: [QuantitySample]) -> String {
        let decimals = group.map(DisplayQuantity.decimals(of:)).max() ?? 0
        let values = group.map(\.value)
        let mean = values.reduce(0, +) / Double(values.count)
        let number = { (value: Double) in DisplayQuantity.number(value, decimals: decimals) }
        let low = number(values.min() ?? 0)
        let high = number(values.max() ?? 0)
        let range = low == high ? low : "\(low)–\(high)"
        return "\(range) \(DisplayQuantity.symbol(group[0].unit)), mean \(number(mean))"
    }

    static func deviceName(_ sample: QuantitySample) -> String {
        sample.source.device.map { $0.name ?? $0.model ?? $0.address ?? "device" } ?? "manual"
    }
}
