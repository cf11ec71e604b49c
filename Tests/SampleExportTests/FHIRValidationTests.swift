import BridgeCore
import Foundation
import GATTDecoding
import SampleExport
import Testing

/// Every FHIR export goes through an independent validator: the `fhir.resources` package from PyPI, with its
/// FHIR R4 (4.0.1) models (5.1.x, strict) and its R4B pydantic models (8.x, which also check primitive formats).
/// In CI a missing validator fails these tests; elsewhere they are skipped with that reason.
@Suite(
    .enabled(
        if: PythonTool.validatorsRequired,
        "needs python3 with fhir.resources==5.1.1 and fhir.resources 8.x in /opt/carebridge/fhir-r4b (see .ci/run)"
    )
)
struct FHIRValidationTests {
    /// Every type, blood-pressure pairs and lone halves, manual and device readings, periods and instants.
    static var mixedRecords: [ExportRecord] {
        let cuff = Fixtures.device(Fixtures.cuff)
        var records = Fixtures.everyType
        for minute in 0..<3 {
            let at = Fixtures.morning.addingTimeInterval(Double(3600 + minute * 60))
            records.append(
                ExportRecord(
                    sample: Fixtures.sample(.bloodPressureSystolic, 118 + Double(minute), source: cuff, at: at)
                )
            )
            records.append(ExportRecord(sample: Fixtures.sample(.bloodPressureDiastolic, 77, source: cuff, at: at)))
            records.append(ExportRecord(sample: Fixtures.sample(.meanArterialPressure, 91, source: cuff, at: at)))
        }
        records.append(
            ExportRecord(
                sample: Fixtures.sample(.bodyMass, 70.25, source: .manual),
                matches: [EventMatch(task: "weigh", occurrence: 3)]
            )
        )
        records.append(
            ExportRecord(sample: Fixtures.sample(.bloodGlucose, 99.0858, transmitted: (0.0055, .molePerLitre)))
        )
        // A device time stamp and a corrected clock: a coincident time stamp Observation and a PHD identifier.
        records.append(
            ExportRecord(
                sample: QuantitySample(
                    type: .bodyTemperature,
                    value: 36.9,
                    unit: .celsius,
                    start: Fixtures.morning,
                    source: cuff,
                    deviceTime: DateTime(year: 2026, month: 11, day: 20, hours: 7, minutes: 29, seconds: 0),
                    receivedAt: Fixtures.morning.addingTimeInterval(5),
                    clockOffset: 60,
                    rawPayload: [7, 7]
                )
            )
        )
        records.append(
            ExportRecord(
                sample: Fixtures.sample(
                    .heartRate,
                    61.5,
                    at: Fixtures.morning,
                    end: Fixtures.morning.addingTimeInterval(30.25)
                )
            )
        )
        return records
    }

    func validate(_ options: FHIRBundleWriter.Options) async throws -> (r4: String, r4b: String, summary: ExportSummary)
    {
        var bundle = Data()
        return try await validate(options, bundle: &bundle)
    }

    /// ``validate(_:)``, also giving the bundle's bytes.
    func validate(
        _ options: FHIRBundleWriter.Options,
        bundle: inout Data
    ) async throws -> (r4: String, r4b: String, summary: ExportSummary) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("carebridge-fhir-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("bundle.json").path
        let sink = try FileSink(path: path)
        let writer = FHIRBundleWriter(options: options, sink: { try sink.append($0) })
        for record in Self.mixedRecords { try writer.write(record) }
        let summary = try writer.finish()
        try sink.close()

        bundle = try Data(contentsOf: URL(fileURLWithPath: path))
        let r4 = try await PythonTool.run("validate_fhir.py", [path])
        #expect(r4.status == 0, "R4 validator rejected the bundle: \(r4.stderr)")
        let r4b = try await PythonTool.run("validate_fhir.py", [path, "--r4b", PythonTool.r4bDirectory])
        #expect(r4b.status == 0, "R4B validator rejected the bundle: \(r4b.stderr)")
        return (r4.stdout, r4b.stdout, summary)
    }

    func report(_ text: String) throws -> [String: Any] {
        try Parsed.object(text)
    }

    /// One bundle per patient: each starts with a Patient resource carrying the identifiers, and every
    /// Observation's subject references it; both validators accept both bundles, in both bundle types.
    @Test(arguments: [FHIRBundleWriter.BundleType.collection, .transaction])
    func bundlesPerPatientCarryAPatientResourceThatEverySubjectReferences(
        _ type: FHIRBundleWriter.BundleType
    ) async throws {
        let patients = [
            FHIRPatient(
                id: "bed-1",
                name: "Ada Lovelace",
                birthDate: "1940-12-10",
                gender: "female",
                identifiers: [.init(system: "urn:oid:1.2.36.146.595.217.0.1", value: "MRN-0042", type: "MR")]
            ),
            FHIRPatient(id: "bed-2", name: "Charles Babbage", gender: "male"),
        ]
        var references: Set<String> = []
        for patient in patients {
            var data = Data()
            let (r4, r4b, summary) = try await validate(
                .init(bundleType: type, timeZone: Fixtures.berlin, patient: patient),
                bundle: &data
            )
            for output in [r4, r4b] {
                let report = try report(output)
                let types = report["resourceTypes"] as? [String: Int]
                #expect(types?["Patient"] == 1)
                #expect(report["entries"] as? Int == summary.resources)
            }
            let bundle = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            let entries = try #require(bundle["entry"] as? [[String: Any]])
            let first = try #require(entries.first?["resource"] as? [String: Any])
            #expect(first["resourceType"] as? String == "Patient")
            let identifiers = try #require(first["identifier"] as? [[String: Any]])
            #expect(identifiers.contains { $0["value"] as? String == patient.id })
            for identifier in patient.identifiers {
                #expect(identifiers.contains { $0["value"] as? String == identifier.value })
            }
            let reference = try #require(entries.first?["fullUrl"] as? String)
            references.insert(reference)
            // (A coincident time stamp's subject is the device, as the PHD IG wants.)
            let observations = entries.compactMap { $0["resource"] as? [String: Any] }
                .filter { $0["resourceType"] as? String == "Observation" }
                .filter {
                    (($0["meta"] as? [String: Any])?["profile"] as? [String]) != [PHDCoding.coincidentTimeStampProfile]
                }
            #expect(!observations.isEmpty)
            #expect(
                observations.allSatisfy { ($0["subject"] as? [String: Any])?["reference"] as? String == reference }
            )
        }
        #expect(references.count == 2)
    }

    @Test func collectionBundlePassesBothValidators() async throws {
        let (r4, r4b, summary) = try await validate(.init(subject: "Patient/example", timeZone: Fixtures.berlin))
        for output in [r4, r4b] {
            let report = try report(output)
            #expect(report["type"] as? String == "collection")
            #expect(report["entries"] as? Int == summary.resources)
            let types = report["resourceTypes"] as? [String: Int]
            #expect(types?["Device"] == 3)  // the gateway and two devices
            #expect(types?["Observation"] == summary.resources - 3)
        }
        #expect((try report(r4))["validator"] as? String == "fhir.resources 5.1.0 (FHIR 4.0.1)")
    }

    @Test func transactionBundlePassesBothValidators() async throws {
        let (r4, r4b, summary) = try await validate(.init(bundleType: .transaction, timeZone: Fixtures.berlin))
        for output in [r4, r4b] {
            let report = try report(output)
            #expect(report["type"] as? String == "transaction")
            #expect(report["entries"] as? Int == summary.resources)
        }
    }

    @Test func validatorRejectsABrokenBundle() async throws {
        // The validators are real: an Observation without status and with a bad time is refused by both.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("carebridge-fhir-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let (text, _) = try Fixtures.fhir([ExportRecord(sample: Fixtures.sample(.bodyMass, 70))])
        let broken = text.replacingOccurrences(of: "\"status\":\"final\",", with: "")
            .replacingOccurrences(of: "2026-11-20T07:30:00+01:00", with: "20 Nov 2026")
        let path = directory.appendingPathComponent("broken.json").path
        try Data(broken.utf8).write(to: URL(fileURLWithPath: path))
        #expect(try await PythonTool.run("validate_fhir.py", [path]).status == 1)
        #expect(try await PythonTool.run("validate_fhir.py", [path, "--r4b", PythonTool.r4bDirectory]).status == 1)
    }
}
