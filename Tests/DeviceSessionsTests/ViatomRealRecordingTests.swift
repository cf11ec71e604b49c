import BridgeFoundation
import DeviceSessions
import Foundation
import GATTDecoding
import Testing

/// A real O2Ring night file against the vendor app's own export of the same night: the raw file `20250306222056`
/// (39,130 bytes) and `O2Ring _20250306222056.csv` (ViHealth's CSV) as published in
/// tolnaiz/garmin-venu3-vs-viatom-o2ring at commit 432e20cc2efff80a7f2b087ce8fe15d00fddbe40 (`2025-03-06/`),
/// kept in `Tests/RealBlueZTests/Fixtures/o2ring/` (the real-bluetoothd tier's ring serves the same file).
@Suite struct ViatomRealRecordingTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../RealBlueZTests/Fixtures/o2ring").standardizedFileURL

    /// One row of the vendor's CSV: `22:20:56 Mar 06 2025,92,78,0,0,0` (time, SpO2, pulse rate, motion, ...);
    /// `--` where the ring had no reading.
    struct Row {
        var time: String
        var oxygenSaturation: Int?
        var pulseRate: Int?
        var motion: Int
    }

    static func rows() throws -> [Row] {
        let text = try String(contentsOf: directory.appendingPathComponent("20250306222056.csv"), encoding: .utf8)
        return text.split(whereSeparator: \.isNewline).dropFirst().map { line in
            let fields = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            return Row(
                time: fields[0],
                oxygenSaturation: Int(fields[1]),
                pulseRate: Int(fields[2]),
                motion: Int(fields[3]) ?? -1
            )
        }
    }

    /// The vendor's time column (`22:20:56 Mar 06 2025`) as an ISO date and time.
    static func iso(_ vendor: String) -> String {
        let parts = vendor.split(separator: " ")
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        let month = (months.firstIndex(of: String(parts[1])) ?? -1) + 1
        return "\(parts[3])-\(String(format: "%02d", month))-\(parts[2])T\(parts[0])"
    }

    static func iso(_ time: DateTime, plus seconds: Int) -> String {
        var components = DateComponents()
        components.year = time.year
        components.month = time.month
        components.day = time.day
        components.hour = time.hours
        components.minute = time.minutes
        components.second = time.seconds + seconds
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = calendar.timeZone
        formatter.formatOptions = [.withFullDate, .withTime, .withColonSeparatorInTime, .withDashSeparatorInDate]
        return formatter.string(from: calendar.date(from: components)!)
    }

    @Test func aRealNightFileReadsAsTheVendorAppExportedIt() throws {
        let bytes = try [UInt8](Data(contentsOf: Self.directory.appendingPathComponent("20250306222056")))
        let file = try ViatomOximetryFile(bytes)
        let rows = try Self.rows()
        #expect(file.start == DateTime(year: 2025, month: 3, day: 6, hours: 22, minutes: 20, seconds: 56))
        #expect(file.interval == 4)
        #expect(file.records.count == 7818)
        #expect(rows.count == file.records.count)
        var disagreements: [String] = []
        for (record, row) in zip(file.records, rows) {
            let time = Self.iso(file.start, plus: record.offset)
            let read =
                record.isInvalid
                ? "\(time) -- -- \(record.motion)"
                : "\(time) \(record.oxygenSaturation) \(record.pulseRate) \(record.motion)"
            let vendor =
                "\(Self.iso(row.time)) \(row.oxygenSaturation.map(String.init) ?? "--") "
                + "\(row.pulseRate.map(String.init) ?? "--") \(row.motion)"
            if read != vendor { disagreements.append("\(read) | vendor: \(vendor)") }
        }
        #expect(disagreements.isEmpty, "\(disagreements.count) records differ, first: \(disagreements.prefix(5))")
        // The night ends with the finger out: three records the vendor shows as "--", none of them a reading.
        #expect(file.records.suffix(3).allSatisfy { $0.isInvalid })
        #expect(file.records.filter(\.isInvalid).count == 3)
    }
}
