import Foundation
import SampleExport

/// Builds the report's charts: the grouped bar chart of an intervention's daily completion beside an
/// assessment's daily value, and line charts of vital signs with their threshold bands.
public enum ChartBuilder {
    static let width = 520.0
    static let height = 230.0
    static let left = 48.0
    static let right = 48.0
    static let top = 16.0
    static let bottom = 58.0

    /// The seed's chart: per day, the intervention's completion (0–100 %, left axis) beside the assessment's value
    /// (right axis, 0 to `valueMaximum`), with axis labels and a legend.
    public static func groupedBars(
        days: [String],
        intervention: String,
        completion: [Double?],
        assessment: String,
        values: [Double?],
        valueMaximum: Double,
        valueLabel: String
    ) -> Chart {
        var shapes: [Chart.Shape] = []
        let plotWidth = width - left - right
        let plotHeight = height - top - bottom
        let baseline = top + plotHeight
        // The right axis shares the left one's four intervals: its step is the nice number (1, 2, 2.5 or 5 × 10ⁿ)
        // that reaches the maximum in four.
        let valueStep = niceTicks(low: 0, high: max(valueMaximum, 1e-9), intervals: 4).dropFirst().first ?? 1
        let valueMaximum = valueStep * 4
        for step in 0...4 {
            let y = baseline - plotHeight * Double(step) / 4
            shapes.append(.line(x1: left, y1: y, x2: left + plotWidth, y2: y, stroke: .grid, width: 0.6))
            shapes.append(label(left - 6, y + 3, "\(step * 25)%", anchor: .end))
            shapes.append(
                label(left + plotWidth + 6, y + 3, tickLabel(valueStep * Double(step), step: valueStep), anchor: .start)
            )
        }
        let slot = plotWidth / Double(max(days.count, 1))
        let bar = slot * 0.32
        for (index, day) in days.enumerated() {
            let x = left + slot * Double(index) + slot * 0.18
            if let rate = completion[index] {
                let height = plotHeight * rate
                shapes.append(.rect(x: x, y: baseline - height, width: bar, height: height, fill: .blue))
            }
            if let value = values[index], valueMaximum > 0 {
                let height = plotHeight * min(value / valueMaximum, 1)
                shapes.append(.rect(x: x + bar, y: baseline - height, width: bar, height: height, fill: .orange))
            }
            shapes.append(label(x + bar, baseline + 13, dayLabel(day), anchor: .middle))
        }
        shapes.append(.line(x1: left, y1: baseline, x2: left + plotWidth, y2: baseline, stroke: .ink, width: 0.8))
        shapes.append(label(left - 6, top - 5, "completion", anchor: .start, bold: true))
        shapes.append(label(left + plotWidth + 6, top - 5, valueLabel, anchor: .end, bold: true))
        let legendY = height - 12
        shapes.append(.rect(x: left, y: legendY - 8, width: 10, height: 10, fill: .blue))
        shapes.append(label(left + 14, legendY + 1, "\(intervention) (% of the day's events done)", anchor: .start))
        let second = left + plotWidth / 2 + 10
        shapes.append(.rect(x: second, y: legendY - 8, width: 10, height: 10, fill: .orange))
        shapes.append(label(second + 14, legendY + 1, "\(assessment) (\(valueLabel))", anchor: .start))
        return Chart(
            title: "\(intervention) vs \(assessment)",
            description: "Grouped bars per day: \(intervention) completion in percent beside \(assessment) "
                + "(\(valueLabel)).",
            width: width,
            height: height,
            shapes: shapes
        )
    }

    /// A band of the value axis: `normal` bands are shaded green, alert bands red.
    public struct Band: Sendable, Hashable {
        public var lower: Double
        public var upper: Double
        public var normal: Bool

        public init(lower: Double, upper: Double, normal: Bool) {
            self.lower = lower
            self.upper = upper
            self.normal = normal
        }
    }

    /// One line of a vital-sign chart: the day's mean per day (nil: no reading that day) and, per day, the lowest
    /// and highest reading (a whisker, drawn when they differ).
    public struct Series: Sendable, Hashable {
        public var name: String
        public var values: [Double?]
        public var ranges: [ClosedRange<Double>?]
        public var color: Chart.Color

        public init(name: String, values: [Double?], ranges: [ClosedRange<Double>?] = [], color: Chart.Color = .blue) {
            self.name = name
            self.values = values
            self.ranges = ranges
            self.color = color
        }

        /// Whether any day's lowest and highest reading differ (a whisker is drawn).
        var hasRanges: Bool { ranges.contains { $0.map { $0.lowerBound < $0.upperBound } ?? false } }
    }

    /// A vital sign over the days: per series the day's mean as a line with points, the day's lowest to highest
    /// reading as a whisker through it, threshold bands behind it. Blood pressure is two series in one chart
    /// (systolic above diastolic). The value axis runs between nice numbers (1, 2, 2.5 or 5 × 10ⁿ) that reach
    /// every value, whisker and threshold, so the chart shows the true range of what was measured; the legend
    /// shows a swatch only for what is drawn.
    public static func vitalLine(
        title: String,
        days: [String],
        series: [Series],
        unit: String,
        bands: [Band],
        thresholds: [Double]
    ) -> Chart {
        var shapes: [Chart.Shape] = []
        let plotWidth = width - left - right
        let plotHeight = height - top - bottom
        let baseline = top + plotHeight
        let present =
            series.flatMap { line in
                line.values.compactMap { $0 }
                    + line.ranges.compactMap { $0 }.flatMap { [$0.lowerBound, $0.upperBound] }
            } + thresholds
        // A little room around what is drawn, so a threshold at the edge still shows its band.
        let lowest = present.min() ?? 0
        let highest = present.max() ?? 1
        let room = max((highest - lowest) * 0.05, 1e-9)
        let ticks = niceTicks(low: lowest - room, high: highest + room)
        let low = ticks.first ?? 0
        let high = ticks.last ?? 1
        let y = { (value: Double) in baseline - plotHeight * (value - low) / (high - low) }
        var drawnBands: Set<Bool> = []
        for band in bands {
            let upper = min(band.upper, high)
            let lower = max(band.lower, low)
            guard upper > lower else { continue }
            drawnBands.insert(band.normal)
            shapes.append(
                .rect(
                    x: left,
                    y: y(upper),
                    width: plotWidth,
                    height: y(lower) - y(upper),
                    fill: band.normal ? .band : .alarm
                )
            )
        }
        let step = ticks.count > 1 ? ticks[1] - ticks[0] : 1
        for value in ticks {
            shapes.append(.line(x1: left, y1: y(value), x2: left + plotWidth, y2: y(value), stroke: .grid, width: 0.5))
            shapes.append(label(left - 6, y(value) + 3, tickLabel(value, step: step), anchor: .end))
        }
        for threshold in thresholds {
            shapes.append(
                .line(x1: left, y1: y(threshold), x2: left + plotWidth, y2: y(threshold), stroke: .red, width: 0.8)
            )
            shapes.append(label(left + plotWidth + 4, y(threshold) + 3, format(threshold), anchor: .start))
        }
        let slot = plotWidth / Double(max(days.count, 1))
        for line in series {
            var run: [[Double]] = []
            for index in days.indices {
                let x = left + slot * (Double(index) + 0.5)
                if index < line.ranges.count, let range = line.ranges[index], range.lowerBound < range.upperBound {
                    shapes.append(
                        .line(
                            x1: x,
                            y1: y(range.upperBound),
                            x2: x,
                            y2: y(range.lowerBound),
                            stroke: line.color,
                            width: 0.8
                        )
                    )
                }
                if index < line.values.count, let value = line.values[index] {
                    run.append([x, y(value)])
                    shapes.append(.circle(x: x, y: y(value), radius: 2.6, fill: line.color))
                } else if !run.isEmpty {
                    if run.count > 1 { shapes.append(.polyline(points: run, stroke: line.color, width: 1.6)) }
                    run = []
                }
            }
            if run.count > 1 { shapes.append(.polyline(points: run, stroke: line.color, width: 1.6)) }
        }
        for (index, day) in days.enumerated() {
            shapes.append(label(left + slot * (Double(index) + 0.5), baseline + 13, dayLabel(day), anchor: .middle))
        }
        shapes.append(.line(x1: left, y1: baseline, x2: left + plotWidth, y2: baseline, stroke: .ink, width: 0.8))
        shapes.append(label(left - 40, top - 6, unit, anchor: .start, bold: true))
        // The legend: a swatch for each band kind drawn, the threshold line if any, then each series.
        let legendY = height - 12
        var legendX = left
        if drawnBands.contains(true) {
            shapes.append(.rect(x: legendX, y: legendY - 8, width: 10, height: 10, fill: .band))
            shapes.append(label(legendX + 14, legendY + 1, "normal range", anchor: .start))
            legendX += 80
        }
        if drawnBands.contains(false) {
            shapes.append(.rect(x: legendX, y: legendY - 8, width: 10, height: 10, fill: .alarm))
            shapes.append(label(legendX + 14, legendY + 1, "alert range", anchor: .start))
            legendX += 72
        }
        if !thresholds.isEmpty {
            shapes.append(
                .line(x1: legendX, y1: legendY - 3, x2: legendX + 12, y2: legendY - 3, stroke: .red, width: 0.8)
            )
            shapes.append(label(legendX + 16, legendY + 1, "threshold", anchor: .start))
            legendX += 62
        }
        let whiskers = series.contains(where: \.hasRanges)
        let what = whiskers ? "mean and range of the day" : "mean of the day"
        for line in series where line.values.contains(where: { $0 != nil }) {
            shapes.append(
                .line(x1: legendX, y1: legendY - 3, x2: legendX + 16, y2: legendY - 3, stroke: line.color, width: 1.6)
            )
            let text = series.count == 1 ? "\(line.name) (\(what), \(unit))" : line.name
            shapes.append(label(legendX + 20, legendY + 1, text, anchor: .start))
            legendX += 28 + Double(text.count) * 4.2
        }
        if series.count > 1 {
            shapes.append(label(legendX, legendY + 1, "(\(what), \(unit))", anchor: .start))
        }
        return Chart(
            title: title,
            description: "Line chart of \(series.map(\.name).joined(separator: " and ")) per day in \(unit)"
                + (bands.isEmpty && thresholds.isEmpty ? "." : ", with the rules' thresholds as bands."),
            width: width,
            height: height,
            shapes: shapes
        )
    }

    /// Axis ticks at nice numbers: a step of 1, 2, 2.5 or 5 × 10ⁿ giving at most `intervals` intervals, from the
    /// step's multiple at or below `low` to the one at or above `high` (`low == high` gets a step around it).
    static func niceTicks(low: Double, high: Double, intervals: Int = 5) -> [Double] {
        guard low.isFinite, high.isFinite else { return [0, 1] }
        var low = min(low, high)
        var high = max(low, high)
        if high - low < 1e-9 {
            let pad = max(abs(low) * 0.05, 0.5)
            low -= pad
            high += pad
        }
        let raw = (high - low) / Double(max(intervals, 1))
        let magnitude = pow(10, (log10(raw)).rounded(.down))
        let step = [1, 2, 2.5, 5, 10].map { $0 * magnitude }.first { $0 >= raw * (1 - 1e-9) } ?? 10 * magnitude
        let first = (low / step + 1e-9).rounded(.down) * step
        let last = (high / step - 1e-9).rounded(.up) * step
        var ticks: [Double] = []
        var value = first
        while value <= last + step * 1e-6, ticks.count < 50 {
            ticks.append(abs(value) < step * 1e-9 ? 0 : value)
            value = first + step * Double(ticks.count)
        }
        return ticks.count > 1 ? ticks : [first, first + step]
    }

    /// A tick's label with as many decimals as its step needs: `2.5`, `150`, `0.25`.
    static func tickLabel(_ value: Double, step: Double) -> String {
        var decimals = 0
        while decimals < 6, abs((step * pow(10, Double(decimals))).rounded() - step * pow(10, Double(decimals))) > 1e-6
        {
            decimals += 1
        }
        return DisplayQuantity.number(value, decimals: decimals)
    }

    static func label(
        _ x: Double,
        _ y: Double,
        _ text: String,
        anchor: Chart.Anchor,
        bold: Bool = false
    ) -> Chart.Shape {
        .text(x: x, y: y, text: text, size: 8, anchor: anchor, color: .ink, bold: bold)
    }

    /// `Mo 16` for `2026-11-16`.
    static func dayLabel(_ day: String) -> String {
        let parts = day.split(separator: "-").compactMap { Int($0) }
        guard parts.count == 3 else { return day }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 0)!
        let date = calendar.date(from: DateComponents(year: parts[0], month: parts[1], day: parts[2]))!
        let names = ["Su", "Mo", "Tu", "We", "Th", "Fr", "Sa"]
        return "\(names[calendar.component(.weekday, from: date) - 1]) \(parts[2])"
    }

    static func format(_ value: Double) -> String {
        let rounded = (value * 10).rounded() / 10
        return rounded == rounded.rounded() ? String(Int64(rounded)) : String(rounded)
    }
}
