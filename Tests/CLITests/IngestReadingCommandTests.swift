import Foundation
import TestSupport
import Testing

/// `carebridge ingest` as people type a reading: one blood-pressure reading in one command, a unit glued to
/// the number, a negative value refused with a message rather than taken for an option.
@Suite struct IngestReadingCommandTests {
    /// This test's directory, removed when the test ends.
    let scratch: ScratchDirectory
    var directory: URL { scratch.url }
    let storePath: String

    init() throws {
        scratch = try ScratchDirectory("carebridge-ingest-")
        storePath = scratch.url.appendingPathComponent("store.sqlite").path
    }

    func run(_ arguments: [String]) async throws -> CarebridgeProcess.Result {
        try await CarebridgeProcess.run(arguments + ["--store", storePath], environment: ["TZ": "Europe/Berlin"])
    }

    func samples() async throws -> [[String: Any]] {
        let list = try await run(["samples", "--json"])
        return try #require(JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: Any]])
    }

    @Test func aBloodPressureIsOneIngestOfTwoSamplesAtTheSameTime() async throws {
        let result = try await run(["ingest", "bloodPressure", "120/80", "mmHg", "--at", "2026-11-20T07:30", "--force"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("blood pressure 120/80"), "\(result.stdout)")
        let stored = try await samples()
        #expect(
            Set(stored.compactMap { $0["type"] as? String }) == ["bloodPressureSystolic", "bloodPressureDiastolic"]
        )
        #expect(Set(stored.compactMap { $0["start"] as? String }) == ["2026-11-20T07:30:00+01:00"])
        #expect(Set(stored.compactMap { $0["value"] as? Double }) == [120, 80])
        let export = try await run(["export", "--format", "fhir", "--subject", "Patient/1"])
        #expect(export.stdout.contains("85354-9"), "one blood-pressure panel: \(export.stdout.prefix(400))")
    }

    @Test func unitsGluedToTheNumberAndStoneAreRead() async throws {
        #expect(try await run(["ingest", "bodyMass", "72.5kg", "--at", "2026-11-20T07:30", "--force"]).status == 0)
        #expect(
            try await run(["ingest", "bodyTemperature", "98.6ºF", "--at", "2026-11-20T07:31", "--force"]).status == 0
        )
        #expect(
            try await run(["ingest", "bodyMass", "11", "st", "4", "lb", "--at", "2026-11-20T07:32", "--force"]).status
                == 0
        )
        let stored = try await samples()
        #expect(stored.compactMap { $0["transmittedValue"] as? Double } == [72.5, 98.6, 158], "\(stored)")
        #expect(stored.compactMap { $0["transmittedUnit"] as? String } == ["kg", "[degF]", "[lb_av]"])
    }

    @Test func aNegativeValueIsRefusedWithAMessageNotTakenForAnOption() async throws {
        let result = try await run(["ingest", "bodyTemperature", "-3", "C"])
        #expect(result.status == 65, "\(result.stderr)")
        #expect(result.stderr.contains("body temperature cannot be negative"), "\(result.stderr)")
        let typo = try await run(["ingest", "heartRate", "72", "bmp"])
        #expect(typo.status == 64)
        #expect(typo.stderr.contains("use bpm, e.g. 72 bpm"), "\(typo.stderr)")
    }
}
