import BridgeCore
import BridgeFoundation
import Foundation
import SampleExport
import Testing

@Suite struct FHIRBundleWriterTests {
    typealias Expectation = (type: QuantityType, codes: [String], profile: String, unit: String, value: Double)

    static let expectations: [Expectation] = [
        (.bodyMass, ["29463-7"], "bodyweight", "kg", 72.35),
        (.bodyTemperature, ["8310-5"], "bodytemp", "Cel", 36.6),
        (.heartRate, ["8867-4"], "heartrate", "/min", 64),
        (.bodyMassIndex, ["39156-5"], "bmi", "kg/m2", 12.5),
        (.height, ["8302-2"], "bodyheight", "cm", 113),
        (.bodyFatPercentage, ["41982-0"], "vitalsigns", "%", 21.4),
        (.leanBodyMass, ["91557-9"], "vitalsigns", "kg", 12.5),
        (.oxygenSaturation, ["2708-6", "59408-5"], "oxygensat", "%", 97),
        (.bloodGlucose, ["2339-0"], "vitalsigns", "mg/dL", 95),
        (.meanArterialPressure, ["8478-0"], "vitalsigns", "mm[Hg]", 93),
    ]

    @Test("codes, profile, UCUM unit and value per type", arguments: expectations)
    func observationCodingPerType(expected: Expectation) throws {
        let record = try #require(Fixtures.everyType.first { $0.sample.type == expected.type })
        let (text, summary) = try Fixtures.fhir([record])
        let observation = try #require(try Parsed.resources(text, type: "Observation").first)
        #expect(Parsed.codes(observation) == expected.codes)
        let coding = try #require(((observation["code"] as? [String: Any])?["coding"] as? [[String: Any]])?.first)
        #expect(coding["system"] as? String == "http://loinc.org")
        let meta = try #require(observation["meta"] as? [String: Any])
        let profiles = try #require(meta["profile"] as? [String])
        #expect(profiles.first == "http://hl7.org/fhir/StructureDefinition/" + expected.profile)
        #expect(profiles.dropFirst() == [PHDCoding.numericProfile])
        let quantity = try #require(observation["valueQuantity"] as? [String: Any])
        #expect(quantity["unit"] as? String == expected.unit)
        #expect(quantity["code"] as? String == expected.unit)
        #expect(quantity["system"] as? String == "http://unitsofmeasure.org")
        #expect((quantity["value"] as? NSNumber)?.doubleValue == expected.value)
        #expect(observation["status"] as? String == "final")
        let category = try #require((observation["category"] as? [[String: Any]])?.first?["coding"] as? [[String: Any]])
        #expect(category.first?["system"] as? String == "http://terminology.hl7.org/CodeSystem/observation-category")
        #expect(category.first?["code"] as? String == "vital-signs")
        #expect(summary.exported == 1)
    }

    @Test func writesHeightInCentimetresExactly() throws {
        // 1.13 m × 100 in binary floating point is 112.99999999999999; the export must say 113.
        let (text, _) = try Fixtures.fhir([ExportRecord(sample: Fixtures.sample(.height, 1.13))])
        #expect(text.contains("\"valueQuantity\":{\"value\":113,\"unit\":\"cm\""))
    }

    @Test func writesEffectiveTimeWithOffsetOrPeriod() throws {
        let instant = Fixtures.sample(.bodyMass, 70, at: Fixtures.morning)
        let span = Fixtures.sample(.heartRate, 60, at: Fixtures.morning, end: Fixtures.morning.addingTimeInterval(90.5))
        let (text, _) = try Fixtures.fhir([ExportRecord(sample: instant), ExportRecord(sample: span)])
        let observations = try Parsed.resources(text, type: "Observation")
        #expect(observations[0]["effectiveDateTime"] as? String == "2026-11-20T07:30:00+01:00")
        #expect(observations[0]["effectivePeriod"] == nil)
        let period = try #require(observations[1]["effectivePeriod"] as? [String: String])
        #expect(period == ["start": "2026-11-20T07:30:00+01:00", "end": "2026-11-20T07:31:30.500+01:00"])
    }

    @Test func pairsSystolicAndDiastolicIntoOnePanel() throws {
        let source = Fixtures.device(Fixtures.cuff)
        let payload: [UInt8] = [0x1E, 0x79, 0x00]
        let records = [
            Fixtures.sample(.bloodPressureSystolic, 121, source: source, payload: payload),
            Fixtures.sample(.bloodPressureDiastolic, 79, source: source, payload: payload),
            Fixtures.sample(.meanArterialPressure, 93, source: source, payload: payload),
            Fixtures.sample(.heartRate, 64, source: source, payload: payload),
        ].map { ExportRecord(sample: $0) }
        let (text, summary) = try Fixtures.fhir(records)
        let observations = try Parsed.resources(text, type: "Observation")
        #expect(observations.count == 3)
        let panels = observations.filter { Parsed.codes($0) == ["85354-9"] }
        let panel = try #require(panels.first)
        #expect(panels.count == 1)
        #expect(panel["valueQuantity"] == nil)
        #expect(
            (panel["meta"] as? [String: Any])?["profile"] as? [String] == [
                "http://hl7.org/fhir/StructureDefinition/bp", PHDCoding.compoundNumericProfile,
            ]
        )
        let components = try #require(panel["component"] as? [[String: Any]])
        #expect(components.map(Parsed.codes) == [["8480-6"], ["8462-4"]])
        let values = components.map { (($0["valueQuantity"] as? [String: Any])?["value"] as? NSNumber)?.doubleValue }
        #expect(values == [121, 79])
        #expect(components.allSatisfy { ($0["valueQuantity"] as? [String: Any])?["code"] as? String == "mm[Hg]" })
        #expect(observations.contains { Parsed.codes($0) == ["8478-0"] })
        #expect(!observations.contains { Parsed.codes($0) == ["8480-6"] || Parsed.codes($0) == ["8462-4"] })
        #expect(summary.exported == 4)
        #expect(summary.records == 4)
    }

    @Test func pairsDiastolicArrivingFirstAndKeepsDifferentReadingsApart() throws {
        let source = Fixtures.device(Fixtures.cuff)
        let later = Fixtures.morning.addingTimeInterval(600)
        let records = [
            Fixtures.sample(.bloodPressureDiastolic, 80, source: source, payload: [1]),
            Fixtures.sample(.bloodPressureSystolic, 120, source: source, payload: [1]),
            // A systolic from another reading has no partner: written alone with its own code.
            Fixtures.sample(.bloodPressureSystolic, 140, source: source, at: later, payload: [2]),
        ].map { ExportRecord(sample: $0) }
        let (text, summary) = try Fixtures.fhir(records)
        let observations = try Parsed.resources(text, type: "Observation")
        #expect(observations.map(Parsed.codes) == [["85354-9"], ["8480-6"]])
        let components = try #require(observations[0]["component"] as? [[String: Any]])
        let values = components.map { (($0["valueQuantity"] as? [String: Any])?["value"] as? NSNumber)?.doubleValue }
        #expect(values == [120, 80])
        #expect(summary.exported == 3)
    }

    @Test func lonePressureHalfIsWrittenOnceThePairingWindowPasses() throws {
        let collector = Fixtures.Collector()
        let writer = FHIRBundleWriter(options: .init(timeZone: Fixtures.berlin, pairingWindow: 2), sink: collector.sink)
        try writer.write(ExportRecord(sample: Fixtures.sample(.bloodPressureSystolic, 130, payload: [9])))
        #expect(!collector.text.contains("8480-6"))
        try writer.write(ExportRecord(sample: Fixtures.sample(.heartRate, 70, payload: [10])))
        try writer.write(ExportRecord(sample: Fixtures.sample(.heartRate, 71, payload: [11])))
        #expect(collector.text.contains("8480-6"))
        _ = try writer.finish()
    }

    @Test func choosesGlucoseCodeByTransmittedUnit() throws {
        let records = [
            // kg/L from a meter: mass concentration, mg/dL.
            Fixtures.sample(.bloodGlucose, 95, transmitted: (0.00095, .kilogramPerLitre), payload: [1]),
            // mol/L from a meter: molar, converted exactly to mmol/L.
            Fixtures.sample(.bloodGlucose, 99.0858, transmitted: (0.0055, .molePerLitre), payload: [2]),
            // Typed by hand in mmol/L.
            Fixtures.sample(.bloodGlucose, 126.1092, transmitted: (7, .millimolePerLitre), source: .manual),
        ].map { ExportRecord(sample: $0) }
        let (text, _) = try Fixtures.fhir(records)
        let observations = try Parsed.resources(text, type: "Observation")
        #expect(observations.map(Parsed.codes) == [["2339-0"], ["15074-8"], ["15074-8"]])
        let quantities = observations.map { $0["valueQuantity"] as? [String: Any] }
        #expect(quantities.map { $0?["code"] as? String } == ["mg/dL", "mmol/L", "mmol/L"])
        #expect(quantities.map { ($0?["value"] as? NSNumber)?.doubleValue } == [95, 5.5, 7])
    }

    @Test func writesEachDeviceOnceBeforeItsFirstObservation() throws {
        let cuff = Fixtures.device(Fixtures.cuff)
        let scale = Fixtures.device(Fixtures.scale, uuid: 0x2A9D)
        let records = [
            Fixtures.sample(.heartRate, 60, source: cuff, payload: [1]),
            Fixtures.sample(.bodyMass, 70, source: scale, payload: [2]),
            Fixtures.sample(.heartRate, 61, source: cuff, payload: [3]),
            Fixtures.sample(.bodyMass, 70.2, source: scale, payload: [4]),
        ].map { ExportRecord(sample: $0) }
        let (text, summary) = try Fixtures.fhir(records)
        let entries = try Parsed.entries(text)
        let kinds = entries.map { ($0["resource"] as? [String: Any])?["resourceType"] as? String }
        // The gateway first, then each device before its first reading.
        #expect(kinds == ["Device", "Device", "Observation", "Device", "Observation", "Observation", "Observation"])
        #expect(summary.resources == 7)
        let devices = try Parsed.readingDevices(text)
        let cuffDevice = devices[0]
        #expect(cuffDevice["manufacturer"] as? String == "A&D \"Medical\"")
        #expect(cuffDevice["modelNumber"] as? String == "UA-651BLE")
        #expect(cuffDevice["serialNumber"] as? String == "SN-0001")
        let names = try #require(cuffDevice["deviceName"] as? [[String: String]])
        #expect(
            names == [
                ["name": "BPM Connect", "type": "user-friendly-name"], ["name": "UA-651BLE", "type": "model-name"],
            ]
        )
        let versions = try #require(cuffDevice["version"] as? [[String: Any]])
        #expect(versions.map { $0["value"] as? String } == ["1.2.3", "rev B"])
        #expect(
            versions.map { ($0["type"] as? [String: Any])?["text"] as? String } == [
                "Firmware revision", "Hardware revision",
            ]
        )
        let identifier = try #require((cuffDevice["identifier"] as? [[String: Any]])?.first)
        #expect(identifier["system"] as? String == "urn:carebridge:device")
        #expect(identifier["value"] as? String == "A4:C1:38:00:00:01")
        // Observations point at their own device's fullUrl, a UUID derived from the device key.
        let cuffURL = "urn:uuid:" + SHA256.uuid(for: "device|A4:C1:38:00:00:01").uuidString.lowercased()
        #expect(entries[1]["fullUrl"] as? String == cuffURL)
        let references = try Parsed.resources(text, type: "Observation").map {
            ($0["device"] as? [String: Any])?["reference"] as? String
        }
        #expect(references == [cuffURL, entries[3]["fullUrl"] as? String, cuffURL, entries[3]["fullUrl"] as? String])
    }

    @Test func identifiesObservationsBySampleId() throws {
        let sample = Fixtures.sample(.bodyMass, 70.4)
        let (text, _) = try Fixtures.fhir([ExportRecord(sample: sample)])
        let entry = try #require(try Parsed.entries(text).last)
        let observation = try #require(entry["resource"] as? [String: Any])
        let id = sample.id.uuidString.lowercased()
        #expect(observation["identifier"] as? [[String: String]] == [["system": "urn:carebridge:sample", "value": id]])
        #expect(entry["fullUrl"] as? String == "urn:uuid:" + id)
        #expect(entry["request"] == nil)
    }

    @Test func transactionEntriesAreConditionalCreates() throws {
        let cuff = Fixtures.device(Fixtures.cuff)
        let weight = Fixtures.sample(.bodyMass, 70.4, source: cuff)
        let options = FHIRBundleWriter.Options(
            bundleType: .transaction,
            subject: "Patient/p1",
            timeZone: Fixtures.berlin
        )
        let (text, _) = try Fixtures.fhir([ExportRecord(sample: weight)], options: options)
        let bundle = try Parsed.object(text)
        #expect(bundle["type"] as? String == "transaction")
        let requests = try Parsed.entries(text).map { $0["request"] as? [String: String] }
        #expect(
            requests == [
                [
                    "method": "POST", "url": "Device",
                    "ifNoneExist": "identifier=\(PHDCoding.systemIDSystem)|\(FHIRGateway.unnamed.systemID)",
                ],
                [
                    "method": "POST", "url": "Device",
                    "ifNoneExist": "identifier=urn:carebridge:device|A4:C1:38:00:00:01",
                ],
                [
                    "method": "POST", "url": "Observation",
                    "ifNoneExist": "identifier=urn:carebridge:sample|" + weight.id.uuidString.lowercased(),
                ],
            ]
        )
        let observation = try #require(try Parsed.resources(text, type: "Observation").first)
        #expect((observation["subject"] as? [String: String])?["reference"] == "Patient/p1")
    }

    @Test func sameSamplesGiveTheSameBundleTwice() throws {
        let first = try Fixtures.fhir(
            Fixtures.everyType,
            options: .init(bundleType: .transaction, timeZone: Fixtures.berlin)
        )
        let second = try Fixtures.fhir(
            Fixtures.everyType,
            options: .init(bundleType: .transaction, timeZone: Fixtures.berlin)
        )
        #expect(first.text == second.text)
        #expect(first.text.contains("ifNoneExist"))
    }

    @Test func escapesSearchValuesInIfNoneExist() throws {
        let odd = DeviceIdentity(name: "Cuff & Co #1")
        let sample = Fixtures.sample(.heartRate, 60, source: Fixtures.device(odd))
        let (text, _) = try Fixtures.fhir([ExportRecord(sample: sample)], options: .init(bundleType: .transaction))
        let device = try #require(try Parsed.entries(text)[1]["request"] as? [String: String])
        #expect(device["ifNoneExist"] == "identifier=urn:carebridge:device|Cuff%20%26%20Co%20%231")
    }

    @Test func marksManualReadingsAsPatientReported() throws {
        let manual = Fixtures.sample(.bodyMass, 71, source: .manual)
        let measured = Fixtures.sample(.bodyMass, 71, payload: [7])
        let options = FHIRBundleWriter.Options(subject: "Patient/p1", timeZone: Fixtures.berlin)
        let (text, _) = try Fixtures.fhir(
            [ExportRecord(sample: manual), ExportRecord(sample: measured)],
            options: options
        )
        let observations = try Parsed.resources(text, type: "Observation")
        let tags = observations.map { (($0["meta"] as? [String: Any])?["tag"] as? [[String: String]])?.first?["code"] }
        #expect(tags == ["patient-reported", nil])
        #expect(observations[0]["device"] == nil)
        #expect((observations[0]["performer"] as? [[String: String]])?.first?["reference"] == "Patient/p1")
        #expect(observations[1]["performer"] == nil)
        #expect(try Parsed.readingDevices(text).count == 1)
    }

    @Test func skipsTypesWithoutCodeAndCountsThem() throws {
        let records = [
            Fixtures.sample(.rrInterval, 812, payload: [1]),
            Fixtures.sample(.rrInterval, 830, payload: [1], index: 1),
            Fixtures.sample(.bodyImpedance, 500, payload: [2]),
            Fixtures.sample(.heartRate, 72, payload: [1]),
        ].map { ExportRecord(sample: $0) }
        let (text, summary) = try Fixtures.fhir(records)
        #expect(summary.skipped == [.rrInterval: 2, .bodyImpedance: 1])
        #expect(summary.skippedCount == 3)
        #expect(summary.exported == 1)
        #expect(try Parsed.resources(text, type: "Observation").count == 1)
    }

    @Test func emptyExportIsABundleWithoutEntries() throws {
        let (text, summary) = try Fixtures.fhir([])
        let bundle = try Parsed.object(text)
        #expect(bundle["resourceType"] as? String == "Bundle")
        #expect(bundle["entry"] == nil)
        #expect(summary == ExportSummary())
    }

    @Test func streamsEntriesBeforeFinish() throws {
        let collector = Fixtures.Collector()
        let writer = FHIRBundleWriter(options: .init(timeZone: Fixtures.berlin), sink: collector.sink)
        for (offset, value) in [70.0, 70.1, 70.2].enumerated() {
            try writer.write(ExportRecord(sample: Fixtures.sample(.bodyMass, value, payload: [UInt8(offset)])))
        }
        // The header, the gateway, the device and three observations are out before finish().
        #expect(collector.chunks.count == 6)
        #expect(collector.text.contains("70.2"))
        _ = try writer.finish()
        #expect(throws: ExportError.self) { try writer.write(ExportRecord(sample: Fixtures.sample(.bodyMass, 1))) }
    }
}
