import BridgeCore
import Foundation
import SampleExport
import Testing

@Suite struct CSVWriterTests {
    func csv(
        _ records: [ExportRecord],
        zone: TimeZone = Fixtures.berlin
    ) throws -> (text: String, summary: ExportSummary) {
        let collector = Fixtures.Collector()
        let writer = CSVWriter(timeZone: zone, sink: collector.sink)
        for record in records { try writer.write(record) }
        let summary = try writer.finish()
        return (collector.text, summary)
    }

    /// Parses with Python's csv module, independently of our quoting.
    func parsedByPython(_ text: String) async throws -> [[String: String]] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("carebridge-csv-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("export.csv")
        try Data(text.utf8).write(to: file)
        let result = try await PythonTool.run("read_csv.py", [file.path])
        try #require(result.status == 0, "python3 csv could not read the export: \(result.stderr)")
        let rows = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: String]]
        return try #require(rows)
    }

    @Test func writesHeaderAndOneRowPerSample() async throws {
        let (text, summary) = try csv(Fixtures.everyType)
        let lines = text.components(separatedBy: "\r\n").filter { !$0.isEmpty }
        #expect(lines.first == CSVWriter.columns.joined(separator: ","))
        #expect(lines.count == Fixtures.everyType.count + 1)
        #expect(summary.resources == Fixtures.everyType.count)
        #expect(summary.skipped.isEmpty)
    }

    @Test func quotesFieldsAsRFC4180AndPythonReadsThemBack() async throws {
        let awkward = DeviceIdentity(address: nil, name: "Scale, \"bathroom\"\nupstairs")
        let record = ExportRecord(
            sample: Fixtures.sample(.bodyMass, 70.4, source: Fixtures.device(awkward)),
            matches: [EventMatch(task: "weigh, morning", occurrence: 4), EventMatch(task: "trend", occurrence: 12)]
        )
        let (text, _) = try csv([record])
        #expect(text.contains("\"Scale, \"\"bathroom\"\"\nupstairs\""))
        let rows = try await parsedByPython(text)
        #expect(rows.count == 1)
        #expect(rows[0]["device"] == "Scale, \"bathroom\"\nupstairs")
        #expect(rows[0]["task"] == "weigh, morning;trend")
        #expect(rows[0]["occurrence"] == "4;12")
        #expect(rows[0]["id"] == record.sample.id.uuidString.lowercased())
    }

    @Test func keepsFullPrecisionAndTransmittedValues() async throws {
        let pounds = 155.2
        let kilograms = pounds * 0.45359237
        let samples = [
            Fixtures.sample(.bodyMass, kilograms, transmitted: (pounds, .pound), payload: [1]),
            Fixtures.sample(.bodyFatPercentage, 0.1 + 0.2, payload: [2]),
            Fixtures.sample(.bloodGlucose, 1e-7, payload: [3]),
        ]
        let (text, _) = try csv(samples.map { ExportRecord(sample: $0) })
        let rows = try await parsedByPython(text)
        // Every value reads back as exactly the Double written.
        #expect(rows.map { Double($0["value"] ?? "") } == samples.map(\.value))
        #expect(rows[1]["value"] == "0.30000000000000004")
        #expect(rows[0]["transmitted_value"] == "155.2")
        #expect(rows[0]["transmitted_unit"] == "[lb_av]")
        #expect(rows[0]["unit"] == "kg")
    }

    @Test func writesTimesWithTheZoneOffsetAcrossDaylightSaving() async throws {
        // 2026-03-29 01:30 UTC is 03:30 CEST (+02:00); an hour earlier is 01:30 CET (+01:00).
        let summer = Date(timeIntervalSince1970: 1_774_747_800)
        let winter = summer.addingTimeInterval(-3600)
        let samples = [
            Fixtures.sample(.heartRate, 60, at: winter, payload: [1]),
            Fixtures.sample(.heartRate, 61, at: summer, end: summer.addingTimeInterval(0.25), payload: [2]),
        ]
        let rows = try await parsedByPython(try csv(samples.map { ExportRecord(sample: $0) }).text)
        #expect(rows.map { $0["start"] } == ["2026-03-29T01:30:00+01:00", "2026-03-29T03:30:00+02:00"])
        #expect(rows[1]["end"] == "2026-03-29T03:30:00.250+02:00")
        let utc = try csv([ExportRecord(sample: samples[0])], zone: TimeZone(identifier: "UTC")!).text
        #expect(utc.contains(",2026-03-29T00:30:00+00:00,"))
    }

    @Test func writesSourceKindAndDevice() async throws {
        let rows = try await parsedByPython(
            try csv([
                ExportRecord(sample: Fixtures.sample(.bodyMass, 70, source: .manual)),
                ExportRecord(sample: Fixtures.sample(.heartRate, 70, source: Fixtures.device(Fixtures.cuff))),
            ]).text
        )
        #expect(rows.map { $0["source"] } == ["manual", "device"])
        #expect(rows.map { $0["device"] } == ["", "A4:C1:38:00:00:01"])
        #expect(rows.map { $0["task"] } == ["", ""])
    }

    @Test func emptyExportIsTheHeaderAlone() async throws {
        let (text, summary) = try csv([])
        #expect(text == CSVWriter.columns.joined(separator: ",") + "\r\n")
        #expect(summary.records == 0)
    }
}
