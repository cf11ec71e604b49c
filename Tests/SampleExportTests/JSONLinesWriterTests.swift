import BridgeCore
import BridgeFoundation
import Foundation
import SampleExport
import Testing

@Suite struct JSONLinesWriterTests {
    @Test func everyLineParsesOnItsOwn() throws {
        let collector = Fixtures.Collector()
        let writer = JSONLinesWriter(timeZone: Fixtures.berlin, sink: collector.sink)
        var records = Fixtures.everyType
        records[0].matches = [EventMatch(task: "weigh", occurrence: 2), EventMatch(task: "trend", occurrence: 9)]
        for record in records { try writer.write(record) }
        let summary = try writer.finish()
        #expect(collector.text.hasSuffix("\n"))
        let lines = collector.text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(lines.count == records.count)
        #expect(summary.resources == records.count)
        for (line, record) in zip(lines, records) {
            let object = try Parsed.object(String(line))
            #expect(object["id"] as? String == record.sample.id.uuidString.lowercased())
            #expect(object["type"] as? String == record.sample.type.rawValue)
            #expect((object["value"] as? NSNumber)?.doubleValue == record.sample.value)
            #expect(object["start"] as? String == Timestamp.format(record.sample.start, in: Fixtures.berlin))
            let matches = try #require(object["matches"] as? [[String: Any]])
            #expect(matches.map { $0["task"] as? String } == record.matches.map(\.task))
            #expect(matches.map { $0["occurrence"] as? Int } == record.matches.map(\.occurrence))
        }
    }

    @Test func escapesTextSoLinesNeverBreak() throws {
        let collector = Fixtures.Collector()
        let writer = JSONLinesWriter(timeZone: Fixtures.berlin, sink: collector.sink)
        let odd = DeviceIdentity(name: "two\nlines \"quoted\"")
        try writer.write(ExportRecord(sample: Fixtures.sample(.heartRate, 60, source: Fixtures.device(odd))))
        _ = try writer.finish()
        #expect(collector.text.filter { $0 == "\n" }.count == 1)
        let object = try Parsed.object(collector.text)
        let device = (object["source"] as? [String: Any])?["device"] as? [String: Any]
        #expect(device?["name"] as? String == "two\nlines \"quoted\"")
    }
}
