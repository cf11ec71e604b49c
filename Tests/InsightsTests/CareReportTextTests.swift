import CarePlan
import CareReport
import CareStore
import Foundation
import TestSupport
import Testing

/// The PDF report's text beyond Helvetica and beyond a page: names in any script (embedded TrueType subsets that
/// pdftotext reads back), rows taller than a page continued without touching the footer, and a word of 10,000
/// characters broken in linear time (the growth figure is in Sources/carebridge-bench/README.md).
@Suite(.serialized) struct CareReportTextTests {
    let scratch: ScratchDirectory

    init() throws {
        scratch = try ScratchDirectory("report-text-")
    }

    static let names = ["Zoë Ångström-Müller", "王小明", "محمد الأحمد", "Ελένη Παπαδοπούλου", "Сергей Иванов"]

    static func report(title: String = "Care report", patient: String, tables: [ReportData.Table]) -> ReportData {
        ReportData(
            title: title,
            patient: patient,
            period: "2026-11-16 – 2026-11-22",
            generated: "Generated 2026-11-23 12:00",
            summary: ["Nothing changed."],
            charts: [],
            tables: tables
        )
    }

    func write(_ bytes: [UInt8], _ name: String) throws -> String {
        let path = scratch.url.appendingPathComponent(name).path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    func pageCount(_ pdf: String) async throws -> Int {
        let info = try await ExternalTool.run("pdfinfo", [pdf]).stdout
        return Int(info.split(separator: "\n").first { $0.hasPrefix("Pages:") }?.split(separator: " ").last ?? "0") ?? 0
    }

    func expectValid(_ pdf: String) async throws {
        let check = try await ExternalTool.run("qpdf", ["--check", pdf])
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        #expect(check.stdout.contains("No syntax or stream encoding errors found"))
    }

    @Test(.enabled(if: ExternalTool.enabled("qpdf", "pdfinfo", "pdftotext", "fc-match")))
    func namesInAnyScriptAreEmbeddedAndExtractFromEveryPageHeader() async throws {
        let patient = "Patient: " + Self.names.joined(separator: " / ")
        let rows = (0..<160).map { ["2026-11-\(16 + $0 % 7)", "reading \($0)", Self.names[$0 % Self.names.count]] }
        let report = Self.report(
            patient: patient,
            tables: [ReportData.Table(title: "Readings", headers: ["Day", "What", "Who"], rows: rows)]
        )
        let pdf = try write(PDFReport.render(report, pageSize: .a4), "names.pdf")
        try await expectValid(pdf)
        let pages = try await pageCount(pdf)
        #expect(pages >= 3)
        for page in 1...pages {
            let text = try await ExternalTool.run("pdftotext", ["-f", "\(page)", "-l", "\(page)", pdf, "-"]).stdout
            for name in Self.names {
                #expect(text.contains(name), "page \(page) lacks \(name): \(text.prefix(300))")
            }
            #expect(!text.contains("?"), "page \(page) shows a character as ?")
        }
        // The fonts are subsets, embedded as CID fonts: pdffonts lists them as embedded and subset.
        let fonts = try await ExternalTool.run("pdffonts", [pdf]).stdout
        let embedded = fonts.split(separator: "\n").filter { $0.contains("CID TrueType") }
        #expect(embedded.count >= 2, "\(fonts)")
        #expect(embedded.allSatisfy { $0.contains("Identity-H") && $0.contains(" yes yes yes ") }, "\(fonts)")
        // A subset is small: the CJK font file is megabytes, its few glyphs are not.
        let size = try FileManager.default.attributesOfItem(atPath: pdf)[.size] as? Int ?? 0
        #expect(size < 400_000, "\(size) bytes")
    }

    @Test(.enabled(if: ExternalTool.enabled("qpdf", "pdfinfo", "pdftotext")))
    func aRowTallerThanAPageContinuesOnTheNextWithoutTouchingTheFooter() async throws {
        let note = (1...2_000).map { String(format: "line%04d", $0) }.joined(separator: " ")
        let rows = [["2026-11-17", "short"], ["2026-11-18", note], ["2026-11-19", "after"]]
        let report = Self.report(
            patient: "Patient: Ada",
            tables: [ReportData.Table(title: "Answers and notes", headers: ["Day", "Note"], rows: rows)]
        )
        let pdf = try write(PDFReport.render(report, pageSize: .letter), "tall.pdf")
        try await expectValid(pdf)
        let pages = try await pageCount(pdf)
        #expect(pages >= 2)
        let all = try await ExternalTool.run("pdftotext", ["-layout", pdf, "-"]).stdout
        // Every word of the note exactly once, in order, and the row after it too.
        let words = all.split(whereSeparator: { $0 == " " || $0 == "\n" }).filter { $0.hasPrefix("line") }
        #expect(words == (1...2_000).map { Substring(String(format: "line%04d", $0)) })
        #expect(all.contains("after") && all.contains("Answers and notes (continued)"))
        // Bounding boxes: nothing but the footer below the bottom margin (792 − 42 − 18 = 732 from the top).
        let bbox = try await ExternalTool.run("pdftotext", ["-bbox", pdf, "-"]).stdout
        let pattern = try Regex(
            #"<word xMin="[0-9.]+" yMin="([0-9.]+)" xMax="[0-9.]+" yMax="([0-9.]+)">([^<]*)</word>"#
        )
        var footers = 0
        for match in bbox.matches(of: pattern) {
            let yMin = Double(String(match.output[1].substring ?? "")) ?? 0
            let yMax = Double(String(match.output[2].substring ?? "")) ?? 0
            let word = String(match.output[3].substring ?? "")
            if yMin > 740 {
                #expect(["Page", "of"].contains(word) || Int(word) != nil, "\(word) at \(yMin) is in the footer")
                footers += 1
            } else {
                #expect(yMax <= 734, "\(word) ends at \(yMax), past the bottom margin")
            }
        }
        #expect(footers == 4 * pages)
    }

    @Test(.enabled(if: ExternalTool.enabled("qpdf", "pdftotext")))
    func aWordOfTenThousandCharactersIsBrokenIntoLines() async throws {
        let word = String(repeating: "abcdefghij", count: 1_000)
        let report = Self.report(
            patient: "Patient: Ada",
            tables: [
                ReportData.Table(title: "Answers and notes", headers: ["Day", "Note"], rows: [["2026-11-17", word]])
            ]
        )
        let pdf = try write(PDFReport.render(report, pageSize: .a4), "word.pdf")
        try await expectValid(pdf)
        // The cell's lines together are the word: nothing lost or repeated at the breaks.
        let text = try await ExternalTool.run("pdftotext", [pdf, "-"]).stdout
        let lines = text.split(separator: "\n").filter { $0.allSatisfy { "abcdefghij".contains($0) } }
        #expect(lines.count > 20 && lines.joined() == word)
    }

    @Test(.enabled(if: ExternalTool.enabled("qpdf", "pdfinfo", "pdftotext")))
    func everyPageNamesThePatientsBirthDateRecordAllergiesAndClinician() async throws {
        let fixture = try await InsightsGoldenTests.history()
        for minute in 0..<150 {
            _ = try await fixture.weight(
                75,
                at: AlertFixture.time(2026, 11, 17, 12).addingTimeInterval(Double(minute) * 60)
            )
        }
        try await fixture.store.savePatient(
            Patient(
                id: "anna",
                name: "Anna Łukasiewicz",
                birthday: "1948-03-09",
                allergies: ["penicillin", "latex"],
                identifiers: [PatientIdentifier(system: "urn:example:mrn", value: "MRN-0042", type: "MR")]
            )
        )
        try await fixture.store.saveContact(
            CareContact(id: "neighbour", planID: "anna", name: "Bea", category: .personal, role: "neighbour")
        )
        try await fixture.store.saveContact(
            CareContact(
                id: "gp",
                planID: "anna",
                name: "Omar Haddad",
                category: .careTeam,
                role: "physician",
                title: "Dr."
            )
        )
        let store = fixture.store.scoped(to: "anna")
        let report = try await ReportBuilder.build(
            store: store,
            from: AlertFixture.time(2026, 11, 16),
            to: AlertFixture.time(2026, 11, 23),
            patient: "Anna Łukasiewicz",
            generatedAt: AlertFixture.time(2026, 11, 23, 12),
            individualReadings: true
        )
        #expect(
            report.patientDetails == [
                "born 1948-03-09", "record MRN-0042", "allergies: penicillin, latex",
                "clinician: Dr. Omar Haddad (physician)",
            ]
        )
        let html = HTMLReport.render(report)
        #expect(html.contains("allergies: penicillin, latex") && html.contains("record MRN-0042"))
        let pdf = try write(PDFReport.render(report, pageSize: .a4), "patient.pdf")
        try await expectValid(pdf)
        let pages = try await pageCount(pdf)
        #expect(pages >= 3)
        for page in 1...pages {
            let text = try await ExternalTool.run("pdftotext", ["-f", "\(page)", "-l", "\(page)", pdf, "-"]).stdout
            let flat = text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            for expected in report.patientDetails + ["Anna Łukasiewicz"] {
                #expect(flat.contains(expected), "page \(page) lacks \(expected)")
            }
        }
    }

    @Test func aPatientWithoutRecordedAllergiesOrClinicianSaysSoRatherThanNothing() async throws {
        let fixture = try AlertFixture()
        try await fixture.store.savePatient(Patient(id: "ben", name: "Ben"))
        let report = try await ReportBuilder.build(
            store: fixture.store.scoped(to: "ben"),
            from: AlertFixture.time(2026, 11, 16),
            to: AlertFixture.time(2026, 11, 23),
            patient: "Ben"
        )
        #expect(report.patientDetails == ["record not recorded", "allergies not recorded", "clinician not recorded"])
    }
}
