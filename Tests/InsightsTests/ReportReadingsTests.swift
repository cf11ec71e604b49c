import BridgeCore
import CareStore
import Foundation
import Testing

@testable import CareReport

/// The report's "Readings" table as a care team reads it: the units people use, a strap's stream as one row a day,
/// and every flagged reading still on its own row.
@Suite struct ReportReadingsTests {
    typealias F = AlertFixture

    static let strap = DeviceIdentity(address: "C0:11:22:33:44:55", name: "Polar H10 1234")
    static let cuff = DeviceIdentity(address: "C0:11:22:33:44:66", name: "BP-7")

    static func reading(
        _ type: QuantityType,
        _ value: Double,
        _ unit: HealthUnit,
        at date: Date,
        from device: DeviceIdentity,
        transmitted: (Double, HealthUnit)? = nil,
        comparator: ValueComparator? = nil,
        quarantine: String? = nil,
        index: Int = 0
    ) -> QuantitySample {
        QuantitySample(
            type: type,
            value: value,
            unit: unit,
            start: date,
            transmittedValue: transmitted?.0,
            transmittedUnit: transmitted?.1,
            source: SampleSource(kind: .device, device: device),
            receivedAt: date,
            index: index,
            comparator: comparator,
            quarantineReason: quarantine
        )
    }

    func readings(_ samples: [QuantitySample]) async throws -> ReportData.Table {
        let fixture = try F()
        try await fixture.store.recordSamples(samples)
        let report = try await ReportBuilder.build(
            store: fixture.store,
            from: F.time(2026, 11, 16),
            to: F.time(2026, 11, 23),
            generatedAt: F.time(2026, 11, 23, 12),
            individualReadings: true
        )
        return try #require(report.tables.first { $0.title == "Readings" })
    }

    @Test func aStrapsDayOfHeartRateIsOneRowWithItsSpanRangeAndMean() async throws {
        // 08:00–08:04:59 at 1 Hz: 300 heart rates cycling 60…79 bpm (mean 69.5), plus a cuff's one pulse.
        let start = F.time(2026, 11, 18, 8)
        var samples = (0..<300).map { second in
            Self.reading(
                .heartRate,
                Double(60 + second % 20),
                .perMinute,
                at: start.addingTimeInterval(Double(second)),
                from: Self.strap
            )
        }
        samples.append(
            Self.reading(.heartRate, 66, .perMinute, at: F.time(2026, 11, 18, 9), from: Self.cuff)
        )
        let table = try await readings(samples)
        #expect(table.rows.count == 2, "\(table.rows)")
        let stream = try #require(table.rows.first)
        #expect(stream[0] == "2026-11-18 08:00–08:04")
        #expect(stream[1] == "heart rate")
        #expect(stream[2] == "60–79 bpm, mean 70")
        #expect(stream[3] == "Polar H10 1234")
        #expect(stream[4] == "300 readings, one row")
        #expect(table.rows[1] == ["2026-11-18 09:00", "heart rate", "66 bpm", "BP-7", ""])
        #expect(table.marked.isEmpty)
    }

    @Test func eachDayOfAStreamIsItsOwnRowAndAShortSeriesIsListedReadingByReading() async throws {
        var samples: [QuantitySample] = []
        for day in [18, 19] {
            for minute in 0..<60 {
                samples.append(
                    Self.reading(
                        .heartRate,
                        70,
                        .perMinute,
                        at: F.time(2026, 11, day, 10, minute),
                        from: Self.strap
                    )
                )
            }
        }
        // 48 readings in a day is not yet a stream: each is listed.
        for minute in 0..<48 {
            samples.append(
                Self.reading(.heartRate, 70, .perMinute, at: F.time(2026, 11, 20, 10, minute), from: Self.strap)
            )
        }
        let table = try await readings(samples)
        #expect(table.rows.count == 2 + 48)
        #expect(table.rows[0][0] == "2026-11-18 10:00–10:59" && table.rows[0][2] == "70 bpm, mean 70")
        #expect(table.rows[1][0] == "2026-11-19 10:00–10:59" && table.rows[1][4] == "60 readings, one row")
        #expect(table.rows[2...].allSatisfy { $0[2] == "70 bpm" && $0[4].isEmpty })
    }

    @Test func flaggedReadingsInsideAStreamKeepTheirOwnRows() async throws {
        let start = F.time(2026, 11, 18, 8)
        var samples = (0..<100).map { second in
            Self.reading(.heartRate, 70, .perMinute, at: start.addingTimeInterval(Double(second)), from: Self.strap)
        }
        samples.append(
            Self.reading(
                .heartRate,
                250,
                .perMinute,
                at: start.addingTimeInterval(30.5),
                from: Self.strap,
                quarantine: "implausible heart rate",
                index: 1
            )
        )
        samples.append(
            Self.reading(
                .heartRate,
                30,
                .perMinute,
                at: start.addingTimeInterval(60.5),
                from: Self.strap,
                comparator: .lessThan,
                index: 1
            )
        )
        let table = try await readings(samples)
        #expect(table.rows.count == 3, "\(table.rows)")
        #expect(table.rows[0][2] == "70 bpm, mean 70" && table.rows[0][4] == "100 readings, one row")
        #expect(table.rows[1][2] == "[250 bpm]" && table.rows[1][4] == "QUARANTINED: implausible heart rate")
        #expect(table.rows[2][2] == "< 30 bpm (LO)" && table.rows[2][4].hasPrefix("OUT OF RANGE (LO"))
        #expect(table.marked == [[1, 2], [1, 4], [2, 2], [2, 4]])
    }

    @Test func valuesUseTheUnitsPeopleUseAtTheResolutionTheDeviceSent() async throws {
        let at = F.time(2026, 11, 18, 7)
        let table = try await readings([
            Self.reading(
                .bloodPressureSystolic,
                120.009852128,
                .millimetreOfMercury,
                at: at,
                from: Self.cuff,
                transmitted: (16.0, .kilopascal)
            ),
            Self.reading(
                .bodyTemperature,
                37.0,
                .celsius,
                at: at.addingTimeInterval(60),
                from: Self.cuff,
                transmitted: (98.6, .fahrenheit)
            ),
        ])
        #expect(table.rows.map { $0[2] } == ["120 mmHg", "37 °C"])
        #expect(!table.rows.joined().joined().contains("mm[Hg]"))
    }

    @Test(.enabled(if: ExternalTool.enabled("pdftotext")))
    func thePDFSpellsOutUnitsItsStandardFontLacks() async throws {
        let fixture = try F()
        let at = F.time(2026, 11, 18, 7)
        try await fixture.store.recordSamples([
            Self.reading(.bodyImpedance, 500, .ohm, at: at, from: Self.cuff),
            Self.reading(.bodyMassIndex, 23.7, .kilogramPerSquareMetre, at: at, from: Self.cuff),
        ])
        let report = try await ReportBuilder.build(
            store: fixture.store,
            from: F.time(2026, 11, 16),
            to: F.time(2026, 11, 23),
            generatedAt: F.time(2026, 11, 23, 12),
            individualReadings: true
        )
        let pdf = fixture.directory.appendingPathComponent("units.pdf")
        try Data(PDFReport.render(report, pageSize: .a4)).write(to: pdf)
        let text = try await ExternalTool.run("pdftotext", ["-layout", pdf.path, "-"]).stdout
        #expect(text.contains("500 ohm"), "\(text)")
        #expect(text.contains("23.7 kg/m²"), "\(text)")
        #expect(!text.contains("?"), "\(text)")
    }

    @Test func aStreamIsHeldAsItsSummaryNotItsReadings() async throws {
        // 2,000 heart rates at 1 Hz from 08:00, 50…89 bpm: past the threshold only the summary is held.
        let start = F.time(2026, 11, 18, 8)
        let samples = (0..<2_000).map { second in
            Self.reading(.heartRate, Double(50 + second % 40), .perMinute, at: start + Double(second), from: Self.strap)
        }
        let fixture = try F()
        try await fixture.store.recordSamples(samples)
        var table = ReadingsTable(zone: fixture.store.bridgeZone)
        var held: [Int] = []
        var cursor = fixture.store.sampleCursor(matching: SampleQuery(), pageSize: 300)
        while let page = try await cursor.next() {
            for stored in page { table.add(stored) }
            held.append(table.heldReadings)
        }
        #expect(held.count == 7)
        #expect(held.allSatisfy { $0 <= ReadingsTable.streamThreshold }, "\(held)")
        let rows = table.table().rows
        #expect(rows.count == 1)
        #expect(rows.first?[2] == "50–89 bpm, mean 70")
        #expect(rows.first?[4] == "2000 readings, one row")
        #expect(rows.first?[0].hasSuffix("08:33") == true, "\(rows)")
    }
}
