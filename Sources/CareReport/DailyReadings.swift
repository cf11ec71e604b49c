import BridgeCore
import CareStore
import Foundation
import SampleExport

/// The care report's per-day table: one row per day of the period, a column per measure with the day's values
/// (up to ``listed``) or its lowest to highest and how many, and the day's adherence — instead of pages of
/// individual readings. Blood pressure is one column of pairs (`164/98`).
///
/// What it holds is a few numbers per day and measure, however many readings stream past. A LO/HI result is a
/// bound, not a value: it is counted in its day's cell (marked) and listed among the flagged readings; quarantined
/// and deleted readings are only there.
struct DailyReadings {
    /// A day's cell lists its values up to this many; more are shown as their range and count.
    static let listed = 3

    /// A column: blood pressure (pairs), or one quantity type.
    enum Measure: Hashable, Comparable {
        case bloodPressure
        case quantity(QuantityType)

        var order: Int {
            switch self {
            case .bloodPressure: -1
            case .quantity(let type): QuantityType.allCases.firstIndex(of: type) ?? 0
            }
        }

        static func < (left: Measure, right: Measure) -> Bool { left.order < right.order }
    }

    /// The values of one measure on one day, in its canonical unit.
    struct Stat {
        var count = 0
        var sum = 0.0
        var lowest: (value: Double, at: Date)?
        var highest: (value: Double, at: Date)?
        var decimals = 0

        var mean: Double? { count == 0 ? nil : sum / Double(count) }
        var range: ClosedRange<Double>? {
            lowest.flatMap { low in highest.map { low.value...max(low.value, $0.value) } }
        }

        mutating func add(_ sample: QuantitySample) {
            count += 1
            sum += sample.value
            if lowest.map({ sample.value < $0.value }) ?? true { lowest = (sample.value, sample.start) }
            if highest.map({ sample.value > $0.value }) ?? true { highest = (sample.value, sample.start) }
            decimals = max(decimals, DisplayQuantity.decimals(of: sample))
        }

        func text(_ value: Double) -> String { DisplayQuantity.number(value, decimals: decimals) }
    }

    /// One day's cell: the values (a blood pressure's systolic in `main`, diastolic in `second`), the first few as
    /// text, and the LO/HI results.
    struct Cell {
        var main = Stat()
        var second = Stat()
        var texts: [String] = []
        /// The text of the reading with the highest `main` value (`185/100`).
        var highestText: String?
        /// The first few LO/HI results as shown (`< 20 mg/dL (LO)`), and how many there were.
        var outOfRange: [String] = []
        var outOfRangeCount = 0
        /// Of those, the results below the device's range (LO).
        var belowRangeCount = 0
    }

    private let zone: TimeZone
    private(set) var cells: [String: [Measure: Cell]] = [:]
    private(set) var measures: Set<Measure> = []

    init(zone: TimeZone) {
        self.zone = zone
    }

    /// The local day of an instant (`2026-11-18`).
    func day(_ date: Date) -> String { String(ReportBuilder.short(date, zone: zone).prefix(10)) }

    /// Adds one reading of the period (quarantined and deleted ones are left to the flagged table).
    mutating func add(_ reading: PressurePairer.Reading) {
        switch reading {
        case .pair(let systolic, let diastolic):
            let key = day(systolic.sample.start)
            var cell = cells[key]?[.bloodPressure] ?? Cell()
            let wasHighest = cell.main.highest.map { systolic.sample.value > $0.value } ?? true
            cell.main.add(systolic.sample)
            cell.second.add(diastolic.sample)
            let text = "\(cell.main.text(systolic.sample.value))/\(cell.second.text(diastolic.sample.value))"
            if cell.texts.count < Self.listed + 1 { cell.texts.append(text) }
            if wasHighest { cell.highestText = text }
            measures.insert(.bloodPressure)
            cells[key, default: [:]][.bloodPressure] = cell
        case .single(let stored):
            let sample = stored.sample
            guard !sample.isQuarantined, stored.deletedDate == nil else { return }
            let key = day(sample.start)
            let measure = Measure.quantity(sample.type)
            var cell = cells[key]?[measure] ?? Cell()
            if sample.comparator != nil {
                cell.outOfRangeCount += 1
                if sample.comparator == .lessThan { cell.belowRangeCount += 1 }
                if cell.outOfRange.count < Self.listed { cell.outOfRange.append(ReadingsTable.value(of: sample)) }
            } else {
                cell.main.add(sample)
                let text = cell.main.text(sample.value)
                if cell.texts.count < Self.listed + 1 { cell.texts.append(text) }
                if cell.main.highest?.at == sample.start { cell.highestText = text }
            }
            measures.insert(measure)
            cells[key, default: [:]][measure] = cell
        }
    }

    /// A measure's cell on a day, if it had readings.
    func cell(_ measure: Measure, on day: String) -> Cell? { cells[day]?[measure] }

    /// The table: a row per day of `days`, a column per measure read, and `adherence` per day (`2 of 3`).
    func table(days: [String], adherence: [String: (completed: Int, total: Int)]) -> ReportData.Table {
        let columns = measures.sorted()
        var rows: [[String]] = []
        var marked: Set<[Int]> = []
        for day in days {
            var row = ["\(ChartBuilder.dayLabel(day).prefix(2)) \(day)"]
            for (column, measure) in columns.enumerated() {
                guard let cell = cells[day]?[measure] else {
                    row.append("—")
                    continue
                }
                row.append(Self.text(cell, measure: measure))
                if cell.outOfRangeCount > 0 { marked.insert([rows.count, column + 1]) }
            }
            let done = adherence[day]
            row.append(done.map { $0.total == 0 ? "—" : "\($0.completed) of \($0.total)" } ?? "—")
            rows.append(row)
        }
        return ReportData.Table(
            title: "Readings per day",
            note: "Each day's readings per measure: the values when there are up to \(Self.listed), else the lowest "
                + "to highest and how many. Out-of-range results (LO/HI) are counted in their day (marked) and "
                + "listed under Flagged readings. Done: the day's interventions done of those due.",
            headers: ["Day"] + columns.map(Self.header) + ["Done"],
            rows: rows,
            marked: marked
        )
    }

    static func header(_ measure: Measure) -> String {
        switch measure {
        case .bloodPressure: "Blood pressure (mmHg)"
        case .quantity(let type):
            type.title.prefix(1).uppercased() + type.title.dropFirst()
                + " (\(DisplayQuantity.symbol(type.canonicalUnit)))"
        }
    }

    /// `164/98, 150/90`; `150–185/88–100 (6 readings)`; `58–84, mean 70 (300 readings)`; and LO/HI results.
    static func text(_ cell: Cell, measure: Measure) -> String {
        var parts: [String] = []
        if cell.main.count > 0 {
            if cell.main.count <= listed {
                parts.append(cell.texts.prefix(listed).joined(separator: ", "))
            } else {
                let span = { (stat: Stat) -> String in
                    guard let low = stat.lowest?.value, let high = stat.highest?.value else { return "" }
                    return low == high ? stat.text(low) : "\(stat.text(low))–\(stat.text(high))"
                }
                switch measure {
                case .bloodPressure:
                    parts.append("\(span(cell.main))/\(span(cell.second)) (\(cell.main.count) readings)")
                case .quantity:
                    let mean = cell.main.mean.map { cell.main.text($0) } ?? ""
                    parts.append("\(span(cell.main)), mean \(mean) (\(cell.main.count) readings)")
                }
            }
        }
        if cell.outOfRangeCount > 0 {
            let more = cell.outOfRangeCount - cell.outOfRange.count
            parts.append(
                "out of range: " + cell.outOfRange.joined(separator: ", ") + (more > 0 ? " and \(more) more" : "")
            )
        }
        return parts.joined(separator: "; ")
    }
}
