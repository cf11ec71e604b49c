import BridgeCore
import BridgeFoundation
import CarePlan
import CareReport
import CareStore
import Foundation
import GATTDecoding
import SampleIngest
import SessionReplay
import TestSupport

/// Paths that a crafted or corrupted file could make quadratic, each timed at n and 4n (or three sizes): a linear
/// path takes about as many times as long as n grows, a quadratic one that squared.
let growthBenchmark = Benchmark(name: "growth", summary: "n vs 4n on paths that used to be quadratic") {
    func row(_ label: String, _ sizes: [Int], _ body: (Int) async throws -> Void) async rethrows {
        var times: [Double] = []
        for size in sizes {
            var best = Double.infinity
            for _ in 0..<3 { best = min(best, try await measure { try await body(size) }.cpu) }
            times.append(best)
        }
        let figures = zip(sizes, times).map { String(format: "n=%d %.3f s", $0, $1) }.joined(separator: ", ")
        let growth = String(format: "%.1f", times.last! / max(times.first!, 1e-9))
        print("\(label): \(figures); ×\(growth) for ×\(sizes.last! / sizes.first!) n")
    }

    // One Heart Rate notification with n RR intervals: decode, normalise, every sample's id.
    try await row("RR intervals in one notification (decode + samples + ids)", [4_000, 16_000]) { count in
        var payload: [UInt8] = [0x10, 72]
        for index in 0..<count { payload += [UInt8(truncatingIfNeeded: index), 0x03] }
        let measurement = try HeartRateMeasurement.decode(payload)
        let context = SampleContext(
            receivedAt: Date(timeIntervalSince1970: 1_795_158_000),
            timeZone: berlin,
            source: SampleSource(
                kind: .device,
                characteristic: BluetoothUUID(0x2A37),
                decoder: "heart-rate-measurement",
                device: DeviceIdentity(address: "C8:47:8C:00:00:01")
            ),
            payload: payload
        )
        var samples: [SampleDraft] = []
        measurement.appendSamples(in: context, to: &samples)
        var ids = Set<UUID>()
        for sample in samples { ids.insert(QuantitySample(sample).id) }
        precondition(ids.count == count + 1)
    }

    // The replay report of a recording whose devices rotate random addresses.
    await row("replay report merge, distinct devices", [30_000, 120_000]) { count in
        var report = PipelineReport()
        for index in 0..<count {
            let address = String(
                format: "02:00:%02X:%02X:%02X:%02X",
                index >> 24 & 0xFF,
                index >> 16 & 0xFF,
                index >> 8 & 0xFF,
                index & 0xFF
            )
            report.devices.append(
                DeviceSummary(identity: DeviceIdentity(address: address), profile: nil, samples: 1)
            )
        }
        var total = PipelineReport()
        total.merge(report)
        total.merge(report)
        precondition(total.devices.count == count)
    }

    // A recording line (JSON object) with n keys.
    try await row("JSON object with many keys", [50_000, 200_000]) { count in
        var text = "{"
        for index in 0..<count { text += "\(index == 0 ? "" : ",")\"k\(index)\":\(index)" }
        text += "}"
        let value = try JSONValue.parse(text)
        precondition(value.objectValue?.members.count == count)
    }

    // Re-applying an unchanged plan of n tasks.
    try await row("re-apply an unchanged plan of n tasks", [3_000, 12_000]) { count in
        let directory = try benchmarkDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try CareStore(
            path: directory.appendingPathComponent("s.sqlite").path,
            bridgeZone: berlin,
            logger: quietLogger
        )
        let start = WallClockTime(year: 2026, month: 1, day: 1)
        let zone = TimeZonePolicy.fixed("Europe/Berlin")
        let plan = CarePlanDocument(
            tasks: (0..<count).map { index in
                CareTask(
                    id: "task-\(index)",
                    title: "task \(index)",
                    kind: .intervention,
                    schedule: .daily(hour: 8, start: start, timeZone: zone)
                )
            }
        )
        try await store.applyPlan(plan)
        let again = try await store.applyPlan(plan)
        precondition(again.unchanged.count == count)
    }

    // A care report whose table cell is one unbroken word of n characters (a pasted note): line breaking.
    await row("PDF report, one unbroken word of n characters", [10_000, 40_000]) { count in
        let word = String(repeating: "abcdefghij", count: count / 10)
        let report = ReportData(
            title: "Care report",
            patient: "Patient: growth",
            period: "2026-11-16 – 2026-11-22",
            generated: "",
            summary: [],
            charts: [],
            tables: [ReportData.Table(title: "Notes", headers: ["Day", "Note"], rows: [["2026-11-17", word]])]
        )
        precondition(PDFReport.render(report).count > count)
    }

    // A plan file with n contacts: parsed (duplicate ids checked) and stored (issue #31: 100k took 84 s).
    try await row("plan file with n contacts (parse + store)", [3_000, 10_000, 30_000]) { count in
        let directory = try benchmarkDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try CareStore(
            path: directory.appendingPathComponent("s.sqlite").path,
            bridgeZone: berlin,
            logger: quietLogger
        )
        let contacts = (0..<count).map { index in
            #"{"id": "c\#(index)", "name": "Contact \#(index)", "category": "careTeam", "emails": ["c\#(index)@example.org"]}"#
        }
        let text =
            #"{"patient": {"id": "p", "name": "P"}, "plan": {"id": "plan", "title": "Plan"}, "contacts": ["#
            + contacts.joined(separator: ",") + "]}"
        let plan = try CarePlanDocument.parse(Data(text.utf8), path: "contacts.json", bridgeZone: berlin)
        try await store.applyPlan(plan)
        let stored = try await store.contacts().count
        precondition(stored == count)
    }

    // A btsnoop capture file of n records (HCI events the importer reads and leaves out), read a record at a time
    // and imported (building and writing the capture are timed too, as building it was before).
    try await row("import btsnoop, capture file of n records (read + import)", [100_000, 300_000, 1_000_000]) { count in
        var capture = BTSnoopCaptureBuilder(format: .h4, start: Date(timeIntervalSince1970: 1_795_158_000))
        for _ in 0..<count { capture.event(0x0E, [0x01, 0x00, 0x00, 0x00]) }
        let directory = try benchmarkDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("capture.btsnoop").path
        try Data(capture.bytes).write(to: URL(fileURLWithPath: path))
        let reader = try BTSnoopReader(path: path)
        var stream = BTSnoopImporter.Stream(
            options: .init(),
            datalink: reader.datalink,
            timesNeverGoBack: try reader.timesNeverGoBack()
        )
        while let record = try reader.next() { _ = stream.add(record) }
        precondition(stream.finish(truncatedTail: reader.truncatedTail).statistics.packets == count)
    }

    // A replay into a store with n heart-rate-linked tasks: peak memory (each size in its own process).
    try replayTasksMemoryRow([2_000, 8_000])
}
