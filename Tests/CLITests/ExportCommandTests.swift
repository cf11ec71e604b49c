import Foundation
import TestSupport
import Testing

/// `carebridge export` end to end: a real store file filled through the CLI, exported by the built executable.
@Suite struct ExportCommandTests {
    @Test func csvAndFHIRPresentValuesAtTheTransmittedPrecision() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("precision-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = dir.appendingPathComponent("s.sqlite").path
        let replay = try await CarebridgeProcess.run([
            "replay", "--store", store, "--time-zone", "UTC", ReplayCommandTests.recording("blood-pressure-kpa.jsonl"),
            ReplayCommandTests.recording("thermometer-fahrenheit.jsonl"),
        ])
        #expect(replay.status == 0, "\(replay.stderr)")
        // 16.0 kPa is stored as 120.009852128 mm[Hg]; 0.1 kPa is 0.75 mm[Hg], so one decimal.
        let csv = try await CarebridgeProcess.run(["export", "--store", store, "--format", "csv"])
        #expect(csv.status == 0, "\(csv.stderr)")
        let rows = csv.stdout.split(separator: "\r\n").map {
            $0.split(separator: ",", omittingEmptySubsequences: false)
        }
        let systolic = try #require(rows.first { $0.count > 9 && $0[1] == "bloodPressureSystolic" })
        #expect(systolic[2] == "120.0" && systolic[8] == "16.0", "\(systolic)")
        let temperature = try #require(rows.first { $0.count > 9 && $0[1] == "bodyTemperature" })
        #expect(temperature[2] == "37.00" && temperature[8] == "98.6", "\(temperature)")
        let samples = try await CarebridgeProcess.run([
            "samples", "--store", store, "--json", "--type", "bloodPressureSystolic",
        ])
        #expect(samples.stdout.contains("120.009852128"), "the store keeps the exact value")

        let fhir = try await CarebridgeProcess.run([
            "export", "--store", store, "--format", "fhir", "--subject", "Patient/p1",
        ])
        #expect(fhir.status == 0, "\(fhir.stderr)")
        #expect(fhir.stdout.contains("\"valueQuantity\":{\"value\":120.0,"), "\(fhir.stdout.prefix(2000))")
        #expect(!fhir.stdout.contains("120.009852128"))
        #expect(fhir.stdout.contains("\"valueQuantity\":{\"value\":37.00,"))
    }

    /// A store with a daily weigh-in task and a few manual readings, in its own directory.
    final class StoreDirectory {
        let url: URL
        var store: String { url.appendingPathComponent("store.sqlite").path }
        var environment: [String: String] { ["CAREBRIDGE_STORE": store, "TZ": "Europe/Berlin"] }

        init() async throws {
            url = FileManager.default.temporaryDirectory.appendingPathComponent("carebridge-export-\(UUID())")
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            let plan = url.appendingPathComponent("plan.json")
            try Data(
                """
                {"tasks": [{"id": "weigh-in", "title": "Weigh yourself", "kind": "assessment",
                  "schedule": {"timeZone": "Europe/Berlin", "elements": [{"start": "2026-11-01T00:00:00",
                    "interval": {"days": 1}, "duration": "allDay"}]},
                  "linkage": {"type": "bodyMass", "unit": "kg", "aggregation": "first"}}]}
                """.utf8
            ).write(to: plan)
            try await run(["plan", "apply", plan.path])
            for reading in [
                ["bodyMass", "72.4", "kg", "2026-11-20T07:30"],
                ["bodyMass", "160", "lb", "2026-11-21T07:30"],
                ["bloodPressureSystolic", "121", "mmHg", "2026-11-21T08:00"],
                ["bloodPressureDiastolic", "79", "mmHg", "2026-11-21T08:00"],
                ["bloodGlucose", "5.5", "mmol/L", "2026-11-21T09:00"],
            ] {
                try await run(["ingest", reading[0], reading[1], reading[2], "--at", reading[3], "--force"])
            }
        }

        deinit { try? FileManager.default.removeItem(at: url) }

        @discardableResult
        func run(_ arguments: [String]) async throws -> CarebridgeProcess.Result {
            let result = try await CarebridgeProcess.run(arguments, environment: environment)
            #expect(result.status == 0, "carebridge \(arguments.joined(separator: " ")): \(result.stderr)")
            return result
        }
    }

    static var validator: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("SampleExportTests/Validator/validate_fhir.py").path
    }

    @Test func exportsATransactionBundleThatTheR4ValidatorAccepts() async throws {
        let directory = try await StoreDirectory()
        let out = directory.url.appendingPathComponent("bundle.json").path
        let result = try await directory.run([
            "export", "--format", "fhir", "--bundle", "transaction", "--subject", "Patient/p1", "--out", out,
        ])
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("exported 5 samples as 4 resources to \(out)"))
        let bundle =
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out))) as? [String: Any]
        let entries = try #require(bundle?["entry"] as? [[String: Any]])
        let codes = entries.compactMap { entry -> String? in
            let code = (entry["resource"] as? [String: Any])?["code"] as? [String: Any]
            return ((code?["coding"] as? [[String: Any]])?.first)?["code"] as? String
        }
        #expect(codes == ["29463-7", "29463-7", "85354-9", "15074-8"])
        #expect(
            entries.allSatisfy {
                ($0["request"] as? [String: String])?["ifNoneExist"]?.hasPrefix("identifier=") == true
            }
        )

        guard PythonTool.validatorsRequired else { return }
        let validation = try await PythonTool.python([Self.validator, out])
        #expect(validation.status == 0, "R4 validator: \(validation.stderr)")
    }

    @Test func exportsCSVToStandardOutputWithMatchedEvents() async throws {
        let directory = try await StoreDirectory()
        let result = try await directory.run(["export", "--format", "csv", "--type", "bodyMass"])
        let lines = result.stdout.components(separatedBy: "\r\n").filter { !$0.isEmpty }
        #expect(lines.count == 3)
        #expect(lines[0].hasPrefix("id,type,value,unit,start,end,source,device"))
        // No patients: an empty patient column; raw samples: empty aggregate columns.
        #expect(lines[1].hasSuffix(",manual,,72.4,kg,weigh-in,19,,,,,,,"))
        #expect(lines[2].contains(",2026-11-21T07:30:00+01:00,"))
        #expect(lines[2].hasSuffix(",160.0,[lb_av],weigh-in,20,,,,,,,"))
    }

    @Test func exportsJSONLinesWithinTheTimeRange() async throws {
        let directory = try await StoreDirectory()
        let result = try await directory.run([
            "export", "--format", "jsonl", "--from", "2026-11-21", "--to", "2026-11-21T08:30",
        ])
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count == 3)
        let types = try lines.map { line in
            (try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["type"] as? String
        }
        #expect(Set(types.compactMap { $0 }) == ["bodyMass", "bloodPressureSystolic", "bloodPressureDiastolic"])
    }

    @Test("pages through the store without losing or repeating a sample", arguments: [1, 2, 3])
    func pagingGivesTheSameExport(pageSize: Int) async throws {
        // Systolic and diastolic share one instant, so a page of one ends in the middle of a tie.
        let directory = try await StoreDirectory()
        let whole = try await directory.run(["export", "--format", "csv"]).stdout
        let paged = try await directory.run(["export", "--format", "csv", "--page-size", String(pageSize)]).stdout
        #expect(paged == whole)
        #expect(whole.components(separatedBy: "\r\n").filter { !$0.isEmpty }.count == 6)
    }

    @Test func refusesAnUnknownTypeAndAnUnwritableFile() async throws {
        let directory = try await StoreDirectory()
        let unknown = try await CarebridgeProcess.run(
            ["export", "--format", "csv", "--type", "bogus"],
            environment: directory.environment
        )
        #expect(unknown.status == 64)
        let unwritable = try await CarebridgeProcess.run(
            ["export", "--format", "csv", "--out", directory.url.path + "/missing/dir/out.csv"],
            environment: directory.environment
        )
        #expect(unwritable.status == 73)
        #expect(unwritable.stderr.contains("missing/dir/out.csv"))
        let mixed = try await CarebridgeProcess.run(
            ["export", "--format", "csv", "--bundle", "transaction"],
            environment: directory.environment
        )
        #expect(mixed.status == 64)
    }
}

/// Runs python3 for the validator; in CI a missing validator fails the test that needs it.
enum PythonTool {
    /// Asked once (a quick import, run synchronously while the first test that asks waits).
    static let validatorsRequired: Bool =
        ProcessInfo.processInfo.environment["CI"] == "true"
        || (try? ChildProcess.run(
            URL(fileURLWithPath: "/usr/bin/env"),
            ["python3", "-c", "import fhir.resources as f; assert f.__fhir_version__ == '4.0.1'"]
        ).status) == 0

    static func python(_ arguments: [String]) async throws -> CarebridgeProcess.Result {
        let output = try await ChildProcess.run(URL(fileURLWithPath: "/usr/bin/env"), ["python3"] + arguments)
        return CarebridgeProcess.Result(
            status: output.status,
            stdout: output.standardOutput,
            stderr: output.standardError
        )
    }
}
