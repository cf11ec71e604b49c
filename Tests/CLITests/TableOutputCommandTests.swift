import Foundation
import TestSupport
import Testing

/// The human tables: right on the day clocks go back and across zones, task titles shown, values at the
/// device's resolution in the units people use, and no line wider than the terminal.
@Suite struct TableOutputCommandTests {
    /// This test's directory, removed when the test ends.
    let scratch: ScratchDirectory
    var directory: URL { scratch.url }
    let storePath: String

    static let plan = """
        {"tasks": [
          {"id": "night-pill", "title": "Night pill", "kind": "intervention",
           "schedule": {"timeZone": "Europe/Berlin",
                        "elements": [{"start": "2026-10-20T02:30:00", "interval": {"days": 1}, "duration": 2700}]}},
          {"id": "tokyo-diary", "title": "Diary (kept in Tokyo time)", "kind": "intervention",
           "schedule": {"timeZone": "Asia/Tokyo",
                        "elements": [{"start": "2026-11-01T00:00:00", "interval": {"days": 1}, "duration": "allDay"}]}}
        ]}
        """

    init() async throws {
        scratch = try ScratchDirectory("carebridge-tables-")
        storePath = scratch.url.appendingPathComponent("store.sqlite").path
        let plan = scratch.url.appendingPathComponent("plan.json")
        try Data(Self.plan.utf8).write(to: plan)
        let applied = try await run(["plan", "apply", plan.path])
        #expect(applied.status == 0, "\(applied.stderr)")
    }

    func run(_ arguments: [String]) async throws -> CarebridgeProcess.Result {
        try await CarebridgeProcess.run(
            arguments + ["--store", storePath],
            environment: ["TZ": "Europe/Berlin", "COLUMNS": "80"]
        )
    }

    @Test func theFallBackDayShowsTheOffsetSoTheEndIsAfterTheStart() async throws {
        let result = try await run(["events", "--from", "2026-10-25", "--to", "2026-10-25", "--task", "night-pill"])
        #expect(result.status == 0, "\(result.stderr)")
        let row = try #require(result.stdout.split(separator: "\n").first { $0.contains("night-pill") })
        #expect(row.contains("2026-10-25 02:30+02:00") && row.contains("02:15+01:00"), "\(result.stdout)")
        #expect(row.contains("Night pill"), "the task's title: \(result.stdout)")
    }

    @Test func anAllDayEventIsLabelledWithTheDayOfItsOwnZone() async throws {
        let result = try await run([
            "events", "--from", "2026-11-20T12:00", "--to", "2026-11-20T13:00", "--task", "tokyo-diary",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let rows = result.stdout.split(separator: "\n").filter { $0.contains("tokyo-diary") }
        #expect(rows.count == 1 && rows[0].hasPrefix("2026-11-20"), "\(result.stdout)")
    }

    @Test func samplesAreShownInPeoplesUnitsAtTheirResolutionWithinEightyColumns() async throws {
        #expect(try await run(["ingest", "bodyMass", "160", "lb", "--at", "2026-11-20T07:30", "--force"]).status == 0)
        #expect(
            try await run(["ingest", "bloodGlucose", "0.0058", "mol/L", "--at", "2026-11-20T07:31", "--force"]).status
                == 0
        )
        #expect(
            try await run(["ingest", "bodyTemperature", "98.6", "°F", "--at", "2026-11-20T07:32", "--force"]).status
                == 0
        )
        let result = try await run(["samples"])
        #expect(result.status == 0, "\(result.stderr)")
        for expected in ["72.6 kg", "160 lb", "104 mg/dL", "0.0058 mol/L", "37 °C", "98.6 °F"] {
            #expect(result.stdout.contains(expected), "\(expected): \(result.stdout)")
        }
        #expect(!result.stdout.contains("72.57"), "\(result.stdout)")
        #expect(!result.stdout.contains("[lb_av]") && !result.stdout.contains("Cel"), "\(result.stdout)")
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.allSatisfy { $0.count <= 80 }, "\(result.stdout)")
        // The id is still there to copy (on the row's continuation line).
        #expect(lines.contains { $0.hasPrefix("    ID ") }, "\(result.stdout)")
    }

    @Test func samplesArePrintedPageByPageAsTheyWouldBeAtOnce() async throws {
        for minute in 0..<7 {
            let at = String(format: "2026-11-20T07:%02d", 30 + minute)
            #expect(try await run(["ingest", "bodyMass", "\(70 + minute)", "kg", "--at", at, "--force"]).status == 0)
        }
        let whole = try await run(["samples", "--json"])
        let paged = try await run(["samples", "--json", "--page-size", "2"])
        #expect(whole.status == 0 && paged.status == 0, "\(paged.stderr)")
        #expect(paged.stdout == whole.stdout)
        let array = try #require(try JSONSerialization.jsonObject(with: Data(paged.stdout.utf8)) as? [[String: Any]])
        #expect(array.count == 7)
        let limited = try await run(["samples", "--json", "--page-size", "3", "--limit", "4"])
        let four = try #require(try JSONSerialization.jsonObject(with: Data(limited.stdout.utf8)) as? [[String: Any]])
        #expect(four.map { $0["id"] as? String } == array.prefix(4).map { $0["id"] as? String })
        // The table: one header, then every sample once, in order, whatever the page size.
        let table = try await run(["samples"])
        let pagedTable = try await run(["samples", "--page-size", "3"])
        #expect(pagedTable.stdout == table.stdout, "\(pagedTable.stdout)")
        #expect(pagedTable.stdout.split(separator: "\n").filter { $0.hasPrefix("MEASURED") }.count == 1)
        let empty = try await run(["samples", "--json", "--from", "2026-12-01", "--page-size", "2"])
        #expect(empty.stdout == "[]\n")
    }
}
