import BridgeCore
import CarePlan
import CareStore
import Foundation
import Insights
import Testing

@testable import CareReport

/// The report as a clinician reads it (issue #30 items 8 and 16): blood pressure as pairs and in one chart, a
/// summary that opens with what changed, a row per day instead of pages of readings, charts with their titles
/// above, nice ticks and only the swatches drawn, a yes/no answer counted in days. Read back from the PDF with
/// pdftotext and from the HTML.
@Suite struct CareReportClinicianTests {
    typealias F = AlertFixture
    static let cuff = ReportReadingsTests.cuff

    static func pressure(_ systolic: Double, _ diastolic: Double, at date: Date) -> [QuantitySample] {
        [
            ReportReadingsTests.reading(.bloodPressureSystolic, systolic, .millimetreOfMercury, at: date, from: cuff),
            ReportReadingsTests.reading(.bloodPressureDiastolic, diastolic, .millimetreOfMercury, at: date, from: cuff),
        ]
    }

    /// The golden history (a weight jump on 11-19), a cuff's blood pressures, a low sugar and a yes/no question.
    static func week() async throws -> F {
        let fixture = try await InsightsGoldenTests.history()
        try await fixture.store.addTask(
            CareTask(id: "dizzy", title: "Dizziness", kind: .assessment, schedule: F.daily(), answer: .yesNo)
        )
        for (day, answer) in [(17, "yes"), (18, "no"), (19, "yes")] {
            try await fixture.answer("dizzy", answer, at: F.time(2026, 11, day, 10))
        }
        var samples = pressure(164, 98, at: F.time(2026, 11, 17, 7))
        samples += pressure(150, 90, at: F.time(2026, 11, 18, 7))
        samples += pressure(185, 100, at: F.time(2026, 11, 18, 19))
        samples.append(
            ReportReadingsTests.reading(
                .bloodGlucose,
                52,
                .milligramPerDecilitre,
                at: F.time(2026, 11, 18, 6),
                from: cuff
            )
        )
        try await fixture.store.recordSamples(samples)
        return fixture
    }

    static func pdfText(_ report: ReportData, _ fixture: F, _ name: String) async throws -> String {
        let pdf = fixture.directory.appendingPathComponent(name)
        try Data(PDFReport.render(report, pageSize: .a4)).write(to: pdf)
        return try await ExternalTool.run("pdftotext", ["-layout", pdf.path, "-"]).stdout
    }

    @Test(.enabled(if: ExternalTool.enabled("pdftotext")))
    func bloodPressureIsAPairInEveryTableAndOneChartOfTwoSeries() async throws {
        let fixture = try await Self.week()
        let report = try await CareReportTests.week(fixture)
        let daily = try #require(report.tables.first { $0.title == "Readings per day" })
        let column = try #require(daily.headers.firstIndex(of: "Blood pressure (mmHg)"))
        #expect(daily.rows.first { $0[0] == "Tu 2026-11-17" }?[column] == "164/98")
        #expect(daily.rows.first { $0[0] == "We 2026-11-18" }?[column] == "150/90, 185/100")
        #expect(!daily.headers.contains { $0.lowercased().contains("systolic") })

        let all = try await CareReportTests.week(fixture, individualReadings: true)
        let readings = try #require(all.tables.first { $0.title == "Readings" })
        let pressures = readings.rows.filter { $0[1] == "blood pressure" }.map { $0[2] }
        #expect(pressures == ["164/98 mmHg", "150/90 mmHg", "185/100 mmHg"])
        #expect(!readings.rows.contains { $0[1].contains("systolic") || $0[1].contains("diastolic") })

        // One chart, two series: the systolic line above the diastolic one, each with its own colour.
        let chart = try #require(report.charts.first { $0.title == "Blood pressure" })
        let lines = chart.shapes.compactMap { shape -> Chart.Color? in
            if case .circle(_, _, _, let fill) = shape { return fill }
            return nil
        }
        #expect(Set(lines).count == 2 && lines.count == 4)
        let legend = chart.shapes.compactMap { shape -> String? in
            if case .text(_, _, let text, _, .start, _, _) = shape { return text }
            return nil
        }
        #expect(legend.contains("systolic") && legend.contains("diastolic"))

        let text = try await Self.pdfText(report, fixture, "pairs.pdf")
        #expect(text.contains("164/98") && text.contains("150/90, 185/100"), "\(text)")
        let html = HTMLReport.render(all)
        #expect(html.contains("<td>164/98 mmHg</td>") && html.contains("<td>185/100 mmHg</td>"))
    }

    @Test(.enabled(if: ExternalTool.enabled("pdftotext")))
    func theSummaryOpensWithWhatChangedEachWithItsNumbers() async throws {
        let fixture = try await Self.week()
        let report = try await CareReportTests.week(fixture)
        #expect(
            report.changes.first
                == "Weight up 3.4 kg in 3 days: 74.1 kg on Mo 16 → 77.5 kg on Th 19 (day means; limit 2 kg in 3 days)."
        )
        #expect(report.changes.contains("Low blood sugar on 1 day: lowest 52 mg/dL on We 18 06:00 (below 70 mg/dL)."))
        #expect(
            report.changes.contains(
                "Blood pressure at or above 160/100 mmHg on 2 of 2 days with readings; highest 185/100 mmHg on We 18 19:00."
            )
        )
        #expect(report.changes.contains { $0.hasPrefix("1 critical alert in the period, 1 still open: ") })

        // The PDF and the HTML put it first, before the per-task lines.
        let text = try await Self.pdfText(report, fixture, "changes.pdf")
        let changed = try #require(text.range(of: "What changed"))
        let weight = try #require(text.range(of: "Weight up 3.4 kg in 3 days"))
        let perTask = try #require(text.range(of: "Per task"))
        #expect(changed.upperBound < weight.lowerBound && weight.upperBound < perTask.lowerBound)
        let html = HTMLReport.render(report)
        let htmlWeight = try #require(html.range(of: "Weight up 3.4 kg"))
        #expect(htmlWeight.lowerBound < (html.range(of: "<h3>Per task</h3>")?.lowerBound ?? html.startIndex))

        // A quiet week says that nothing crossed the limits, and names them.
        let empty = try F()
        let quiet = try await ReportBuilder.build(
            store: empty.store,
            from: F.time(2026, 11, 16),
            to: F.time(2026, 11, 23),
            generatedAt: F.time(2026, 11, 23, 12)
        )
        #expect(quiet.changes.count == 1 && quiet.changes[0].hasPrefix("Nothing crossed the report's limits"))
    }

    @Test(.enabled(if: ExternalTool.enabled("pdftotext")))
    func eachDayIsOneRowWithItsValuesOrItsRangeAndItsAdherence() async throws {
        let fixture = try await Self.week()
        let start = F.time(2026, 11, 20, 8)
        try await fixture.store.recordSamples(
            (0..<300).map { second in
                ReportReadingsTests.reading(
                    .heartRate,
                    Double(60 + second % 20),
                    .perMinute,
                    at: start.addingTimeInterval(Double(second)),
                    from: ReportReadingsTests.strap
                )
            }
        )
        let report = try await CareReportTests.week(fixture)
        #expect(!report.tables.contains { $0.title == "Readings" })
        let daily = try #require(report.tables.first { $0.title == "Readings per day" })
        #expect(
            daily.rows.map(\.[0])
                == (16...22).map { day in ChartBuilder.dayLabel("2026-11-\(day)").prefix(2) + " 2026-11-\(day)" }
        )
        let cell = { (day: Int, header: String) -> String? in
            guard let column = daily.headers.firstIndex(of: header) else { return nil }
            return daily.rows[day - 16][column]
        }
        #expect(cell(16, "Body mass (kg)") == "74.1")
        #expect(cell(19, "Body mass (kg)") == "77.5")
        #expect(cell(20, "Heart rate (bpm)") == "60–79, mean 70 (300 readings)")
        #expect(cell(16, "Heart rate (bpm)") == "—")
        // Medication twice a day, the evening missed on days divisible by 3 (11-18, 11-21).
        #expect(cell(17, "Done") == "2 of 2" && cell(18, "Done") == "1 of 2")

        let text = try await Self.pdfText(report, fixture, "daily.pdf")
        #expect(text.contains("Readings per day") && text.contains("60–79, mean 70 (300 readings)"))
        #expect(!text.contains("Readings (continued)"))
        // The readings one by one remain available on request.
        let all = try await CareReportTests.week(fixture, individualReadings: true)
        #expect(
            all.tables.contains { $0.title == "Readings" } && !all.tables.contains { $0.title == "Readings per day" }
        )
    }

    @Test(.enabled(if: ExternalTool.enabled("pdftotext")))
    func chartsHaveTitlesAboveNiceTicksOnlyTheSwatchesDrawnAndYesNoInDays() async throws {
        let fixture = try await Self.week()
        let report = try await CareReportTests.week(fixture)
        // The weight chart (no band rule of its own but a threshold) and the blood pressure chart (no rules).
        for chart in report.charts where chart.title != "Medication vs Back pain" {
            let ticks = chart.shapes.compactMap { shape -> Double? in
                if case .text(_, _, let text, _, .end, _, _) = shape { return Double(text) }
                return nil
            }
            #expect(ticks.count >= 3, "\(chart.title)")
            let steps = Set(zip(ticks, ticks.dropFirst()).map { ($1 - $0).magnitude })
            #expect(steps.count == 1, "\(chart.title): \(ticks)")
            let step = try #require(steps.first)
            let mantissa = step / pow(10, log10(step).rounded(.down))
            #expect([1, 2, 2.5, 5].contains { abs($0 - mantissa) < 1e-9 }, "\(chart.title): \(ticks)")
            #expect(ticks.allSatisfy { abs(($0 / step).rounded() * step - $0) < 1e-9 }, "\(chart.title): \(ticks)")
        }
        let texts = { (chart: Chart) in
            chart.shapes.compactMap { shape -> String? in
                if case .text(_, _, let text, _, _, _, _) = shape { return text }
                return nil
            }
        }
        let pressure = try #require(report.charts.first { $0.title == "Blood pressure" })
        #expect(!texts(pressure).contains("normal range") && !texts(pressure).contains("alert range"))
        let weight = try #require(report.charts.first { $0.title == "Body mass" })
        // "heavy" (> 78 kg) is drawn as an alert band; no rule draws a normal band.
        #expect(texts(weight).contains("alert range") && !texts(weight).contains("normal range"))
        // Grouped bars: the pain axis (0–10) in steps of 2.5.
        let bars = try #require(report.charts.first { $0.title == "Medication vs Back pain" })
        let right = bars.shapes.compactMap { shape -> String? in
            if case .text(_, _, let text, _, .start, _, false) = shape, Double(text) != nil { return text }
            return nil
        }
        #expect(right == ["0", "2.5", "5", "7.5", "10"])

        // Titles above their charts, in the HTML as in the PDF.
        let html = HTMLReport.render(report)
        for chart in report.charts {
            let caption = try #require(html.range(of: "<figcaption>\(chart.title)</figcaption>"))
            let svg = try #require(html.range(of: "<title>\(chart.title)</title>"))
            #expect(caption.lowerBound < svg.lowerBound, "\(chart.title)")
        }
        let text = try await Self.pdfText(report, fixture, "charts.pdf")
        let title = try #require(text.range(of: "Blood pressure\n"))
        let legend = try #require(text.range(of: "systolic"))
        #expect(title.lowerBound < legend.lowerBound)

        // A yes/no answer is counted in days, never averaged.
        let dizzy = try #require(report.summary.first { $0.hasPrefix("Dizziness:") })
        #expect(dizzy.contains("yes on 2 of 3 day(s) answered") && !dizzy.contains("mean"), "\(dizzy)")
        #expect(text.contains("yes on 2 of 3 day(s) answered"))
    }
}
