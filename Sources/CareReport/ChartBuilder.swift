import Foundation

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
        for step in 0...4 {
            let y = baseline - plotHeight * Double(step) / 4
            shapes.append(.line(x1: left, y1: y, x2: left + plotWidth, y2: y, stroke: .grid, width: 0.6))
            shapes.append(label(left - 6, y + 3, "\(step * 25)%", anchor: .end))
            shapes.append(label(left + plotWidth + 6, y + 3, format(valueMaximum * Double(step) / 4), anchor: .start))
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

    /// A vital sign over the days: the day's mean as a line with points, the day's lowest to highest reading as
    /// a whisker through it, threshold bands behind it.
    /// - Parameter ranges: per day, the lowest and highest reading (drawn when they differ); the scale reaches
    ///   them, so the chart shows the true range of what was measured.
    public static func vitalLine(
        title: String,
        days: [String],
        values: [Double?],
        ranges: [ClosedRange<Double>?] = [],
        unit: String,
        bands: [Band],
        thresholds: [Double]
    ) -> Chart {
        var shapes: [Chart.Shape] = []
        let plotWidth = width - left - right
        let plotHeight = height - top - bottom
        let baseline = top + plotHeight
        let present =
            values.compactMap { $0 } + ranges.compactMap { $0 }.flatMap { [$0.lowerBound, $0.upperBound] }
            + thresholds
        var low = present.min() ?? 0
        var high = present.max() ?? 1
        let padding = max((high - low) * 0.15, 0.5)
        low -= padding
        high += padding
        let y = { (value: Double) in baseline - plotHeight * (value - low) / (high - low) }
        for band in bands {
            let upper = min(band.upper, high)
            let lower = max(band.lower, low)
            guard upper > lower else { continue }
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
        for step in 0...4 {
            let value = low + (high - low) * Double(step) / 4
            shapes.append(.line(x1: left, y1: y(value), x2: left + plotWidth, y2: y(value), stroke: .grid, width: 0.5))
            shapes.append(label(left - 6, y(value) + 3, format(value), anchor: .end))
        }
        for threshold in thresholds {
            shapes.append(
                .line(x1: left, y1: y(threshold), x2: left + plotWidth, y2: y(threshold), stroke: .red, width: 0.8)
            )
            shapes.append(label(left + plotWidth + 4, y(threshold) + 3, format(threshold), anchor: .start))
        }
        let slot = plotWidth / Double(max(days.count, 1))
        var run: [[Double]] = []
        for (index, day) in days.enumerated() {
            let x = left + slot * (Double(index) + 0.5)
            if index < ranges.count, let range = ranges[index], range.lowerBound < range.upperBound {
                shapes.append(
                    .line(x1: x, y1: y(range.upperBound), x2: x, y2: y(range.lowerBound), stroke: .blue, width: 0.8)
                )
            }
            if let value = values[index] {
                run.append([x, y(value)])
                shapes.append(.circle(x: x, y: y(value), radius: 2.6, fill: .blue))
            } else if !run.isEmpty {
                if run.count > 1 { shapes.append(.polyline(points: run, stroke: .blue, width: 1.6)) }
                run = []
            }
            shapes.append(label(x, baseline + 13, dayLabel(day), anchor: .middle))
        }
        if run.count > 1 { shapes.append(.polyline(points: run, stroke: .blue, width: 1.6)) }
        shapes.append(.line(x1: left, y1: baseline, x2: left + plotWidth, y2: baseline, stroke: .ink, width: 0.8))
        shapes.append(label(left - 40, top - 6, unit, anchor: .start, bold: true))
        let legendY = height - 12
        shapes.append(.rect(x: left, y: legendY - 8, width: 10, height: 10, fill: .band))
        shapes.append(label(left + 14, legendY + 1, "normal range", anchor: .start))
        shapes.append(.rect(x: left + 110, y: legendY - 8, width: 10, height: 10, fill: .alarm))
        shapes.append(label(left + 124, legendY + 1, "alert range", anchor: .start))
        shapes.append(
            .line(x1: left + 210, y1: legendY - 3, x2: left + 226, y2: legendY - 3, stroke: .blue, width: 1.6)
        )
        let legend = ranges.contains { $0.map { $0.lowerBound < $0.upperBound } ?? false } ? "mean and range" : "mean"
        shapes.append(label(left + 230, legendY + 1, "\(title) (\(legend) of the day, \(unit))", anchor: .start))
        return Chart(
            title: title,
            description: "Line chart of \(title) per day in \(unit), with the rules' thresholds as bands.",
            width: width,
            height: height,
            shapes: shapes
        )
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
