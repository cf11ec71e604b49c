import BridgeCore
import CarePlan
import CareStore
import Foundation
import Insights

/// The opening of the report's summary: what changed over the period that a clinician acts on, each claim with
/// its numbers and the limit it crossed — a weight gain, a low blood sugar, a high blood pressure, critical
/// alerts, adherence that dropped. Derived from the per-day readings and the insights; nothing is said when
/// nothing crossed a limit, except that (with the limits), so an empty opening is never mistaken for no data.
enum PeriodChanges {
    /// A gain of this many kilograms within ``weightDays`` days (day means) is reported.
    static let weightGain = 2.0
    static let weightDays = 3
    /// Blood glucose below this (mg/dL; 3.9 mmol/L) is a low.
    static let lowGlucose = 70.0
    /// Blood pressure at or above this systolic or diastolic (mmHg) is reported.
    static let highSystolic = 160.0
    static let highDiastolic = 100.0
    /// Adherence down by this many percentage points against the period before is reported.
    static let adherenceDrop = 20

    static func lines(daily: DailyReadings, days: [String], insights: InsightsReport, zone: TimeZone) -> [String] {
        let dayName = { (day: String) in ChartBuilder.dayLabel(day) }
        let at = { (date: Date) in
            "\(dayName(daily.day(date))) \(ReportBuilder.short(date, zone: zone).suffix(5))"
        }
        var lines: [String] = []

        // Weight: the largest rise between day means at most `weightDays` apart.
        let weights = days.map { daily.cell(.quantity(.bodyMass), on: $0)?.main.mean }
        var gain: (from: Int, to: Int, rise: Double)?
        for (later, value) in weights.enumerated() {
            guard let value else { continue }
            for earlier in max(0, later - weightDays)..<later {
                guard let base = weights[earlier], value - base >= weightGain - 1e-9 else { continue }
                if gain.map({ value - base > $0.rise }) ?? true { gain = (earlier, later, value - base) }
            }
        }
        let kg = { (value: Double) in ReportBuilder.number((value * 10).rounded() / 10) }
        if let gain, let first = weights[gain.from], let last = weights[gain.to] {
            let span = gain.to - gain.from
            lines.append(
                "Weight up \(kg(gain.rise)) kg in \(span) day\(span == 1 ? "" : "s"): \(kg(first)) kg on "
                    + "\(dayName(days[gain.from])) → \(kg(last)) kg on \(dayName(days[gain.to])) (day means; "
                    + "limit \(kg(weightGain)) kg in \(weightDays) days)."
            )
        } else if let firstIndex = weights.firstIndex(where: { $0 != nil }),
            let lastIndex = weights.lastIndex(where: { $0 != nil }), lastIndex > firstIndex,
            let first = weights[firstIndex], let last = weights[lastIndex], abs(last - first) >= weightGain - 1e-9
        {
            lines.append(
                "Weight \(last > first ? "up" : "down") \(kg(abs(last - first))) kg over the period: \(kg(first)) kg "
                    + "on \(dayName(days[firstIndex])) → \(kg(last)) kg on \(dayName(days[lastIndex])) (day means)."
            )
        }

        // Low blood sugar: days whose lowest reading is below the limit, and results below the meter's range.
        let glucose = days.compactMap { day in daily.cell(.quantity(.bloodGlucose), on: day).map { (day, $0) } }
        let lowDays = glucose.filter { ($0.1.main.lowest?.value ?? .infinity) < lowGlucose }
        let belowRange = glucose.reduce(0) { $0 + $1.1.belowRangeCount }
        if !lowDays.isEmpty || belowRange > 0 {
            var line = "Low blood sugar"
            let lowest = lowDays.compactMap { entry in entry.1.main.lowest.map { (entry.1, $0) } }
                .min { $0.1.value < $1.1.value }
            if let (cell, low) = lowest {
                line +=
                    " on \(lowDays.count) day\(lowDays.count == 1 ? "" : "s"): lowest "
                    + "\(cell.main.text(low.value)) mg/dL on \(at(low.at)) (below "
                    + "\(ReportBuilder.number(lowGlucose)) mg/dL)"
            }
            if belowRange > 0 {
                line +=
                    (lowDays.isEmpty ? ": " : "; ")
                    + "\(belowRange) result\(belowRange == 1 ? "" : "s") below the meter's range (LO)"
            }
            lines.append(line + ".")
        }

        // High blood pressure: days with a reading at or above the limit, and the highest.
        let pressure = days.compactMap { day in daily.cell(.bloodPressure, on: day).map { (day, $0) } }
        let highDays = pressure.filter {
            ($0.1.main.highest?.value ?? 0) >= highSystolic || ($0.1.second.highest?.value ?? 0) >= highDiastolic
        }
        if let top = highDays.max(by: { ($0.1.main.highest?.value ?? 0) < ($1.1.main.highest?.value ?? 0) }),
            let highest = top.1.main.highest, let text = top.1.highestText
        {
            lines.append(
                "Blood pressure at or above \(ReportBuilder.number(highSystolic))/\(ReportBuilder.number(highDiastolic)) "
                    + "mmHg on \(highDays.count) of \(pressure.count) day\(pressure.count == 1 ? "" : "s") with "
                    + "readings; highest \(text) mmHg on \(at(highest.at))."
            )
        }

        // Critical alerts raised in the period (withdrawn ones aside).
        let critical = insights.alerts.filter { $0.trip.severity == .critical && $0.withdrawnAt == nil }
        if !critical.isEmpty {
            let open = critical.filter(\.isOpen)
            let shown = (open.isEmpty ? critical : open).sorted { $0.trip.occurredAt > $1.trip.occurredAt }
            lines.append(
                "\(critical.count) critical alert\(critical.count == 1 ? "" : "s") in the period, \(open.count) "
                    + "still open: "
                    + shown.prefix(2).map { "\($0.trip.message) (\(at($0.trip.occurredAt)))" }.joined(separator: "; ")
                    + (shown.count > 2 ? "; and \(shown.count - 2) more" : "") + "."
            )
        }

        // Adherence that dropped against the period before.
        for task in insights.tasks where task.kind == .intervention {
            guard let now = task.completion.rate, let before = task.previousCompletion.rate else { continue }
            let points = Int(((before - now) * 100).rounded())
            guard points >= adherenceDrop else { continue }
            lines.append(
                "\(task.title): \(ReportBuilder.percent(now)) done (\(task.completion.completed) of "
                    + "\(task.completion.total)), down from \(ReportBuilder.percent(before)) "
                    + "(\(task.previousCompletion.completed) of \(task.previousCompletion.total)) the period before."
            )
        }

        if lines.isEmpty {
            lines.append(
                "Nothing crossed the report's limits: a weight gain of \(kg(weightGain)) kg in \(weightDays) days, "
                    + "blood sugar below \(ReportBuilder.number(lowGlucose)) mg/dL, blood pressure "
                    + "\(ReportBuilder.number(highSystolic))/\(ReportBuilder.number(highDiastolic)) mmHg, a critical "
                    + "alert, adherence down \(adherenceDrop) points."
            )
        }
        return lines
    }
}
