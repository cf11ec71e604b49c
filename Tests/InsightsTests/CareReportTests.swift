import BridgeCore
import CarePlan
import CareReport
import CareStore
import Foundation
import TestSupport
import Testing

/// The care report checked by independent tools: the PDF with qpdf, pdfinfo, pdftotext and pdftoppm (page 1
/// compared with `Reference/report-page-1.png`), the HTML in headless chromium (a screenshot with the charts'
/// colours, no console errors). `RECORD_SNAPSHOTS=1` re-records the reference rendering.
@Suite(.serialized) struct CareReportTests {
    typealias F = AlertFixture
    static var here: URL { URL(fileURLWithPath: #filePath).deletingLastPathComponent() }
    static let blue = "296bbf"
    static let orange = "ed8c2b"

    /// This test's directory, removed when the test ends.
    let scratch: ScratchDirectory
    var directory: URL { scratch.url }

    init() throws {
        scratch = try ScratchDirectory("report-")
    }

    static func week(_ fixture: F, individualReadings: Bool = false) async throws -> ReportData {
        try await ReportBuilder.build(
            store: fixture.store,
            from: F.time(2026, 11, 16),
            to: F.time(2026, 11, 23),
            generatedAt: F.time(2026, 11, 23, 12),
            individualReadings: individualReadings
        )
    }

    func write(_ bytes: [UInt8], _ name: String) throws -> String {
        let path = directory.appendingPathComponent(name).path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    func stats(_ png: String, reference: String? = nil) async throws -> [String: Any] {
        var arguments = [Self.here.appendingPathComponent("Fixtures/png_stats.py").path, png]
        arguments += ["--colour", Self.blue, "--colour", Self.orange]
        if let reference { arguments += ["--reference", reference] }
        let result = try await ExternalTool.run("python3", arguments)
        #expect(result.status == 0, "\(result.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
    }

    @Test(.enabled(if: ExternalTool.enabled("qpdf", "pdfinfo", "pdftoppm", "pdftotext", "python3")))
    func thePDFIsValidShowsTheWeekAndRendersLikeTheReference() async throws {
        let fixture = try await InsightsGoldenTests.history()
        let report = try await Self.week(fixture)
        let pdf = try write(PDFReport.render(report, pageSize: .a4), "week.pdf")

        let check = try await ExternalTool.run("qpdf", ["--check", pdf])
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        #expect(check.stdout.contains("No syntax or stream encoding errors found"))
        let info = try await ExternalTool.run("pdfinfo", [pdf])
        #expect(info.stdout.contains("Page size:       595.28 x 841.89 pts (A4)"))
        #expect(info.stdout.contains("Title:           Care report"))
        let text = try await ExternalTool.run("pdftotext", ["-layout", pdf, "-"]).stdout
        for expected in [
            "Patient: the person using this bridge", "2026-11-16 – 2026-11-22", "Medication vs Back pain",
            "Adherence per intervention", "Readings per day", "Answers and notes", "Alerts", "Devices",
            "Body mass: +3.4 kg within 3 days (74.1 -> 77.5 kg)", "out of tablets", "Page 1 of",
        ] {
            #expect(text.contains(expected), "PDF text lacks \(expected)")
        }

        let prefix = directory.appendingPathComponent("page").path
        let render = try await ExternalTool.run("pdftoppm", ["-r", "60", "-png", "-f", "1", "-l", "1", pdf, prefix])
        #expect(render.status == 0, "\(render.stderr)")
        let png = try #require(
            try FileManager.default.contentsOfDirectory(atPath: directory.path).first { $0.hasSuffix(".png") }
        )
        let rendered = directory.appendingPathComponent(png).path
        let reference = Self.here.appendingPathComponent("Reference/report-page-1.png").path
        if ProcessInfo.processInfo.environment["RECORD_SNAPSHOTS"] == "1" {
            try? FileManager.default.removeItem(atPath: reference)
            try FileManager.default.copyItem(atPath: rendered, toPath: reference)
        }
        let stats = try await stats(rendered, reference: reference)
        let colours = try #require(stats["colours"] as? [String: Int])
        // The grouped bars are drawn: both series' colours cover real areas of page 1.
        #expect((colours[Self.blue] ?? 0) > 2_000 && (colours[Self.orange] ?? 0) > 1_000, "\(stats)")
        #expect(stats["width"] as? Int == 496 || stats["width"] as? Int == 497)
        // Same poppler and fonts (Debian 12, fonts-dejavu-core for Helvetica) give the same pixels; allow 2 %.
        #expect((stats["difference"] as? Double ?? 1) < 0.02, "page 1 differs from the reference: \(stats)")
    }

    @Test(.enabled(if: ExternalTool.enabled("qpdf", "pdfinfo", "pdftotext")))
    func longTablesBreakBetweenRowsWithTheirHeaderOnLetterPages() async throws {
        let fixture = try await InsightsGoldenTests.history()
        for minute in 0..<150 {
            try await fixture.weight(
                75 + Double(minute % 10) / 10,
                at: F.time(2026, 11, 17, 12, 0).addingTimeInterval(Double(minute) * 60)
            )
        }
        // A LO glucose at the meter's 20 mg/dL limit and a quarantined weight: marked, never plain values.
        let at = F.time(2026, 11, 18, 6)
        try await fixture.store.recordSamples([
            QuantitySample(
                type: .bloodGlucose,
                value: 20,
                unit: .milligramPerDecilitre,
                start: at,
                transmittedValue: 20,
                transmittedUnit: .milligramPerDecilitre,
                source: .manual,
                receivedAt: at,
                comparator: .lessThan
            ),
            QuantitySample(
                type: .bodyMass,
                value: 7.25,
                unit: .kilogram,
                start: at,
                transmittedValue: 7.25,
                transmittedUnit: .kilogram,
                source: .manual,
                receivedAt: at,
                quarantineReason: "implausible body mass"
            ),
        ])
        let report = try await Self.week(fixture, individualReadings: true)
        let readings = try #require(report.tables.first { $0.title == "Readings" })
        let marked = Set(readings.marked.map { $0[0] })
        #expect(marked.count == 2)
        #expect(marked.allSatisfy { readings.rows[$0][2].hasPrefix("< 20") || readings.rows[$0][2].hasPrefix("[") })
        let pdf = try write(PDFReport.render(report, pageSize: .letter), "long.pdf")
        #expect(try await ExternalTool.run("qpdf", ["--check", pdf]).status == 0)
        let info = try await ExternalTool.run("pdfinfo", [pdf]).stdout
        #expect(info.contains("Page size:       612 x 792 pts (letter)"))
        let pages =
            Int(info.split(separator: "\n").first { $0.hasPrefix("Pages:") }?.split(separator: " ").last ?? "0") ?? 0
        #expect(pages >= 4)
        var rowsSeen = 0
        for page in 1...pages {
            let text = try await ExternalTool.run("pdftotext", ["-layout", "-f", "\(page)", "-l", "\(page)", pdf, "-"])
                .stdout
            #expect(text.contains("Care report") && text.contains("Page \(page) of \(pages)"))
            let rows = text.split(separator: "\n").filter { $0.contains("body mass") }.count
            rowsSeen += rows
            if text.contains("Readings (continued)") {
                // A continued table repeats its header on the new page.
                #expect(text.contains("Time") && text.contains("Measure") && rows > 0)
            }
            if let heading = text.range(of: "\nReadings\n") {
                // The title is never left alone: the header and at least two rows follow it on the same page.
                let after = text[heading.upperBound...].split(separator: "\n").filter { $0.contains("body mass") }
                #expect(after.count >= 2, "page \(page)")
            }
        }
        #expect(rowsSeen == 7 + 150 + 1, "every reading appears exactly once")
        let all = try await ExternalTool.run("pdftotext", ["-layout", pdf, "-"]).stdout
        #expect(all.contains("OUT OF RANGE (LO, off scale low)") && all.contains("< 20 mg/dL (LO)"))
        #expect(all.contains("QUARANTINED: implausible body mass") && all.contains("[7.25 kg]"))
    }

    @Test(.enabled(if: ExternalTool.enabled("chromium", "python3")))
    func theHTMLRendersItsChartsInHeadlessChromiumWithoutConsoleErrors() async throws {
        let fixture = try await InsightsGoldenTests.history()
        let html = HTMLReport.render(try await Self.week(fixture))
        // Self-contained: no scripts, nothing loaded from elsewhere (the SVG namespace is a name, not a fetch).
        #expect(
            !html.contains("<script") && !html.contains("src=") && !html.contains("href=") && !html.contains("<link")
        )
        #expect(html.components(separatedBy: "<svg ").count - 1 == 2)
        let page = try write(Array(html.utf8), "week.html")
        let screenshot = directory.appendingPathComponent("shot.png").path
        let result = try await ExternalTool.run(
            "chromium",
            [
                "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--enable-logging=stderr", "--v=0",
                "--window-size=800,1400", "--screenshot=\(screenshot)", "file://\(page)",
            ]
        )
        #expect(FileManager.default.fileExists(atPath: screenshot), "chromium: \(result.stderr)")
        let consoleLines = result.stderr.split(separator: "\n").filter { $0.contains("CONSOLE") }
        #expect(consoleLines.isEmpty, "console messages: \(consoleLines)")
        let stats = try await stats(screenshot)
        let colours = try #require(stats["colours"] as? [String: Int])
        #expect((colours[Self.blue] ?? 0) > 5_000, "blue bars and line: \(stats)")
        #expect((colours[Self.orange] ?? 0) > 2_000, "orange bars: \(stats)")
        // Phone width: the page reflows (no fixed width), charts scale to the viewport.
        #expect(html.contains("name=\"viewport\"") && html.contains("max-width: 40rem"))
    }
}
