import BridgeCore
import BridgeFoundation
import Foundation
import GATTDecoding
import SampleExport
import Testing

/// The rules of HL7's Personal Health Device IG 2.0 that a CareBridge bundle must keep, written as tests. Each is
/// taken from the guide's published profiles (github.com/HL7/phd, `input/fsh`, and the notes pages in
/// `input/intro-notes`); the comment before each check names the profile element and its cardinality.
@Suite struct PHDConformanceTests {
    static let mdcSpecializations: Set<String> = [  // ValueSet DeviceTypes11073MDC
        "528385", "528384", "528388", "528390", "528391", "528392", "528397", "528399", "528401", "528402", "528403",
        "528404", "528405", "528406", "528408", "528409", "528412", "528413", "528425", "528426", "528455", "528456",
        "528457", "528484", "528501", "528502", "528503",
    ]
    /// ValueSet MDCDeviceVersionTypes.
    static let versionTypes: Set<String> = ["531974", "531975", "531976", "531977", "532352", "67912"]
    static let clockTypes: Set<String> = ["67975", "68226", "67983", "68072"]  // MDCClockTypes

    /// A cuff session whose clock ran 90 s slow (the pipeline added 90 s), a scale reading without a device time,
    /// a deleted reading, and a manual one.
    static var records: [ExportRecord] {
        let cuff = Fixtures.device(Fixtures.cuff)
        let stamp = DateTime(year: 2026, month: 11, day: 20, hours: 7, minutes: 28, seconds: 30)
        func cuffSample(_ type: QuantityType, _ value: Double) -> QuantitySample {
            QuantitySample(
                type: type,
                value: value,
                unit: type.canonicalUnit,
                start: Fixtures.morning,
                source: cuff,
                deviceTime: stamp,
                receivedAt: Fixtures.morning.addingTimeInterval(60),
                clockOffset: 90,
                rawPayload: [0x1E, 0x01]
            )
        }
        return [
            ExportRecord(sample: cuffSample(.bloodPressureSystolic, 121)),
            ExportRecord(sample: cuffSample(.bloodPressureDiastolic, 79)),
            ExportRecord(sample: cuffSample(.heartRate, 64)),
            ExportRecord(
                sample: Fixtures.sample(.bodyMass, 72.3, source: Fixtures.device(Fixtures.scale, uuid: 0x2A9D))
            ),
            ExportRecord(sample: Fixtures.sample(.bodyMass, 72.9, payload: [9]), retracted: true),
            ExportRecord(sample: Fixtures.sample(.bodyMass, 71, source: .manual)),
        ]
    }

    static let patient = FHIRPatient(id: "bed-1", name: "Ada Lovelace")

    func bundle(
        _ type: FHIRBundleWriter.BundleType = .collection
    ) throws -> (text: String, byURL: [String: [String: Any]]) {
        let (text, _) = try Fixtures.fhir(
            Self.records,
            options: .init(bundleType: type, timeZone: Fixtures.berlin, patient: Self.patient)
        )
        var byURL: [String: [String: Any]] = [:]
        for entry in try Parsed.entries(text) {
            if let url = entry["fullUrl"] as? String, let resource = entry["resource"] as? [String: Any] {
                byURL[url] = resource
            }
        }
        return (text, byURL)
    }

    static func profiles(_ resource: [String: Any]) -> [String] {
        ((resource["meta"] as? [String: Any])?["profile"] as? [String]) ?? []
    }

    static func reference(_ value: Any?) -> String? { (value as? [String: Any])?["reference"] as? String }

    static func codings(_ concept: Any?) -> [[String: Any]] {
        (concept as? [String: Any])?["coding"] as? [[String: Any]] ?? []
    }

    static func mdc(_ concept: Any?) -> [String] {
        codings(concept).filter { $0["system"] as? String == PHDCoding.mdcSystem }.compactMap { $0["code"] as? String }
    }

    @Test func everyDeviceObservationKeepsThePhdBaseObservationRules() throws {
        let (text, byURL) = try bundle()
        let observations = try Parsed.resources(text, type: "Observation").filter {
            Self.profiles($0).contains { $0 == PHDCoding.numericProfile || $0 == PHDCoding.compoundNumericProfile }
        }
        #expect(observations.count == 4)  // panel, pulse, weight, the deleted weight
        for observation in observations {
            // extension[GatewayDevice] 1..1, valueReference only Reference(PhgDevice)
            let extensions = observation["extension"] as? [[String: Any]] ?? []
            let gateways = extensions.filter { $0["url"] as? String == PHDCoding.gatewayExtension }
            #expect(gateways.count == 1)
            let gateway = try #require(Self.reference(gateways.first?["valueReference"]).flatMap { byURL[$0] })
            #expect(Self.profiles(gateway) == [PHDCoding.gatewayProfile])
            // category[PHD-Observation] 1..1: PhdObservationCategories#phd
            let categories = observation["category"] as? [[String: Any]] ?? []
            let phd = categories.filter {
                Self.codings($0).contains {
                    $0["system"] as? String == PHDCoding.categorySystem && $0["code"] as? String == "phd"
                }
            }
            #expect(phd.count == 1)
            // code obeys mdc-1: coding.where(system = 'urn:iso:std:iso:11073:10101').exists(); LOINC beside it
            // ("If the Type corresponds to one of the Vital Signs Profiles, the LOINC code shall be present").
            #expect(!Self.mdc(observation["code"]).isEmpty)
            #expect(
                Self.codings(observation["code"]).contains { $0["system"] as? String == VitalSignCoding.loincSystem }
            )
            // subject 1..; effective[x] 1.. (dateTime or Period)
            #expect(Self.reference(observation["subject"]) != nil)
            #expect(observation["effectiveDateTime"] != nil || observation["effectivePeriod"] != nil)
            // device 1..; device.reference 1..1, only Reference(PhdDevice)
            let device = try #require(Self.reference(observation["device"]).flatMap { byURL[$0] })
            #expect(Self.profiles(device) == [PHDCoding.deviceProfile])
            // status: final (preliminary only for an early estimate); entered-in-error for an invalid or
            // corrected measurement (Measurement Status table).
            #expect(["final", "entered-in-error"].contains(observation["status"] as? String ?? ""))
            // identifier[conditionalCreate] 0..1: system fixed, type ..0, value 1..
            let identifiers = (observation["identifier"] as? [[String: Any]] ?? []).filter {
                $0["system"] as? String == PHDCoding.identifierSystem
            }
            #expect(identifiers.count <= 1)
            #expect(identifiers.allSatisfy { $0["type"] == nil && !($0["value"] as? String ?? "").isEmpty })
        }
        // Manual readings are no PHD Observations: no device, no PHD profile.
        let manual = try Parsed.resources(text, type: "Observation").filter {
            (($0["meta"] as? [String: Any])?["tag"]) != nil
        }
        #expect(manual.count == 1)
        #expect(manual.allSatisfy { Self.profiles($0).count == 1 && $0["extension"] == nil })
    }

    @Test func correctionsAreEnteredInError() throws {
        let (text, _) = try bundle()
        let statuses = try Parsed.resources(text, type: "Observation").compactMap { $0["status"] as? String }
        #expect(statuses.filter { $0 == "entered-in-error" }.count == 1)
    }

    /// PhdBaseObservation notes, "Conditional-create Identifier": device-patient-type-timestamp[-duration], the
    /// device its EUI in capitals without dashes, the patient `value-system`, the type the MDC code, the time
    /// stamp the device's own (seconds since 2000-01-01), not the corrected `effective[x]`.
    @Test func conditionalCreateIdentifierFollowsTheGuidesConcatenation() throws {
        let (text, _) = try bundle(.transaction)
        let panel = try #require(
            try Parsed.resources(text, type: "Observation").first { Parsed.codes($0) == ["85354-9"] }
        )
        let identifier = try #require(
            (panel["identifier"] as? [[String: Any]])?.first { $0["system"] as? String == PHDCoding.identifierSystem }
        )
        // 2026-11-20T07:28:30 as the device said it: 848_474_910 s after 2000-01-01.
        #expect(identifier["value"] as? String == "A4C138000001-bed-1-urn:carebridge:patient-150020-848474910")
        // The transaction creates it only when no Observation has that identifier yet.
        let entry = try #require(
            try Parsed.entries(text).first {
                ($0["resource"] as? [String: Any])?["id"] == nil
                    && Parsed.codes($0["resource"] as? [String: Any] ?? [:]) == ["85354-9"]
            }
        )
        let request = try #require(entry["request"] as? [String: String])
        #expect(
            request["ifNoneExist"]?.hasPrefix("identifier=" + PHDCoding.identifierSystem + "|A4C138000001-") == true
        )
        // A reading without a device time stamp keeps CareBridge's identifier only (the guide recommends none).
        let weight = try #require(
            try Parsed.resources(text, type: "Observation").first {
                $0["status"] as? String == "final" && Parsed.codes($0) == ["29463-7"] && $0["device"] != nil
            }
        )
        #expect(
            (weight["identifier"] as? [[String: Any]])?.map { $0["system"] as? String } == [
                FHIRBundleWriter.sampleIdentifierSystem
            ]
        )
    }

    /// PhdDevice: identifier 1..; manufacturer 1..; modelNumber 1..; type.coding[PhdCode] = MDC#65573;
    /// specialization 1.. with systemType from DeviceTypes11073MDC and version 1..; version[MDCType] 1..* typed
    /// from MDCDeviceVersionTypes; identifier[btmacAddressIdentifier] typed BTMAC, EUI-48 with dashes.
    @Test func readingDevicesArePhdDevices() throws {
        let (text, _) = try bundle()
        let devices = try Parsed.readingDevices(text)
        #expect(devices.count == 2)
        for device in devices {
            #expect(!(device["identifier"] as? [[String: Any]] ?? []).isEmpty)
            #expect(device["manufacturer"] as? String != nil)
            #expect(device["modelNumber"] as? String != nil)
            #expect(Self.mdc(device["type"]) == ["65573"])
            let specializations = try #require(device["specialization"] as? [[String: Any]])
            #expect(!specializations.isEmpty)
            for specialization in specializations {
                #expect(Self.mdc(specialization["systemType"]).allSatisfy(Self.mdcSpecializations.contains))
                #expect(specialization["version"] as? String != nil)
            }
            let versions = try #require(device["version"] as? [[String: Any]])
            #expect(!versions.isEmpty)
            #expect(versions.allSatisfy { Self.mdc($0["type"]).allSatisfy(Self.versionTypes.contains) })
            let bluetooth = (device["identifier"] as? [[String: Any]] ?? []).filter {
                $0["system"] as? String == PHDCoding.bluetoothAddressSystem
            }
            #expect(bluetooth.count == 1)
            #expect(Self.codings(bluetooth.first?["type"]).first?["code"] as? String == "BTMAC")
        }
        let cuff = try #require(devices.first)
        #expect(Self.mdc((cuff["specialization"] as? [[String: Any]])?.first?["systemType"]) == ["528391"])
    }

    /// PhdDevice: identifier[systemIdIdentifier] 1..1, typed ContinuaDeviceIdentifiers#SYSID, system the EUI-64
    /// OID, value the System-Id "as an 8-byte HEX string where each byte is separated by dashes"; a device that
    /// gives none "set to all zeros". Here: the cuff read its Device Information System ID, the scale did not.
    @Test func everyPhdDeviceHasOneSystemIdAllZerosWhenTheDeviceGaveNone() throws {
        var identity = Fixtures.cuff
        identity.systemID = try SystemID.decode([0x01, 0x02, 0x03, 0x04, 0x05, 0xDC, 0x1B, 0x00]).eui64
        let sample = QuantitySample(
            type: .bloodPressureSystolic,
            value: 121,
            unit: .millimetreOfMercury,
            start: Fixtures.morning,
            source: Fixtures.device(identity)
        )
        let records = [
            ExportRecord(sample: sample),
            ExportRecord(
                sample: Fixtures.sample(.bodyMass, 72.3, source: Fixtures.device(Fixtures.scale, uuid: 0x2A9D))
            ),
        ]
        let (text, _) = try Fixtures.fhir(records, options: .init(timeZone: Fixtures.berlin, patient: Self.patient))
        let devices = try Parsed.readingDevices(text)
        #expect(devices.count == 2)
        var values: [String] = []
        for device in devices {
            let systemIDs = (device["identifier"] as? [[String: Any]] ?? []).filter {
                Self.codings($0["type"]).first?["code"] as? String == "SYSID"
            }
            #expect(systemIDs.count == 1, "\(device)")
            #expect(systemIDs.first?["system"] as? String == PHDCoding.systemIDSystem)
            #expect(
                Self.codings(systemIDs.first?["type"]).first?["system"] as? String
                    == PHDCoding.deviceIdentifierTypeSystem
            )
            values += systemIDs.compactMap { $0["value"] as? String }
        }
        #expect(values.sorted() == ["00-00-00-00-00-00-00-00", "00-1B-DC-05-04-03-02-01"])
    }

    /// PhdBaseObservation "Measurement Status" (BaseObservationProfile.md): questionable(1) → interpretation
    /// measurement-status#questionable; early-indication(9) → #early-indication and status `preliminary` (status:
    /// "final unless … preliminary"); test-data(4) → meta.security v3-ActReason#HTEST; threshold bits 14/15 →
    /// #in-alarm/#alarm-inhibited. A reading without status flags stays `final` with no interpretation.
    @Test(arguments: [
        ("questionable", ["questionable"], "final", false),
        ("early estimate, test data", ["early-indication"], "preliminary", true),
        ("threshold error, thresholding disabled", ["in-alarm", "alarm-inhibited"], "final", false),
        ("validated data", ["validated-data"], "final", false),
        ("", [], "final", false),
    ])
    func measurementStatusBecomesInterpretationStatusAndSecurity(
        flags: String,
        interpretations: [String],
        status: String,
        test: Bool
    ) throws {
        let sample = QuantitySample(
            type: .bodyTemperature,
            value: 37.2,
            unit: .celsius,
            start: Fixtures.morning,
            source: Fixtures.device(Fixtures.cuff, uuid: 0x2A1C),
            metadata: flags.isEmpty ? [:] : ["measurementStatus": flags]
        )
        let (text, _) = try Fixtures.fhir(
            [ExportRecord(sample: sample)],
            options: .init(timeZone: Fixtures.berlin, patient: Self.patient)
        )
        let observation = try #require(
            try Parsed.resources(text, type: "Observation").first {
                Self.profiles($0).contains(PHDCoding.numericProfile)
            }
        )
        #expect(observation["status"] as? String == status)
        let codings = (observation["interpretation"] as? [[String: Any]] ?? []).flatMap { Self.codings($0) }
        #expect(
            codings.allSatisfy {
                $0["system"] as? String == "http://hl7.org/fhir/uv/pocd/CodeSystem/measurement-status"
            }
        )
        #expect(codings.compactMap { $0["code"] as? String } == interpretations)
        let security = ((observation["meta"] as? [String: Any])?["security"] as? [[String: Any]]) ?? []
        #expect(
            security.map { "\($0["system"] ?? "")#\($0["code"] ?? "")" }
                == (test ? ["http://terminology.hl7.org/CodeSystem/v3-ActReason#HTEST"] : [])
        )
    }

    /// PhgDevice: identifier[systemIdIdentifier] typed SYSID, system the EUI-64 OID, value eight hex bytes with
    /// dashes; type.coding[MDCType] = MDC#531981; specialization[MDCType] 1..*; version[MDCType] 1..*.
    @Test func theGatewayIsAPhgDeviceWithAnEUI64() throws {
        let (text, _) = try bundle()
        let gateways = try Parsed.resources(text, type: "Device").filter {
            Self.profiles($0) == [PHDCoding.gatewayProfile]
        }
        let gateway = try #require(gateways.first)
        #expect(gateways.count == 1)
        let identifier = try #require((gateway["identifier"] as? [[String: Any]])?.first)
        #expect(identifier["system"] as? String == PHDCoding.systemIDSystem)
        #expect(Self.codings(identifier["type"]).first?["code"] as? String == "SYSID")
        let value = try #require(identifier["value"] as? String)
        #expect(value.split(separator: "-").count == 8 && value.split(separator: "-").allSatisfy { $0.count == 2 })
        #expect(Self.mdc(gateway["type"]) == ["531981"])
        #expect(!(gateway["specialization"] as? [[String: Any]] ?? []).isEmpty)
        let versions = try #require(gateway["version"] as? [[String: Any]])
        #expect(versions.first?["value"] as? String == FHIRGateway.unnamed.softwareVersion)
        // The same host gives the same System Id; another host another.
        let one = FHIRGateway.derived(fromHostIdentity: "a", softwareVersion: "1")
        #expect(one == FHIRGateway.derived(fromHostIdentity: "a", softwareVersion: "1"))
        #expect(one.systemID != FHIRGateway.derived(fromHostIdentity: "b", softwareVersion: "1").systemID)
    }

    /// PhdCoincidentTimeStampObservation: status = final; code from MDCClockTypes; subject 1.. only
    /// Reference(PhdDevice); device 1.. only Reference(PhgDevice); effective = the gateway's time, value the
    /// device's; derivedFrom and hasMember 0..0. Referenced by CoincidentTimeStampReference from each reading
    /// with a time stamp.
    @Test func aCoincidentTimeStampRecordsTheDeviceClockAgainstTheGateways() throws {
        let (text, byURL) = try bundle()
        let stamps = try Parsed.resources(text, type: "Observation").filter {
            Self.profiles($0) == [PHDCoding.coincidentTimeStampProfile]
        }
        let stamp = try #require(stamps.first)
        #expect(stamps.count == 1)  // one per device session
        #expect(stamp["status"] as? String == "final")
        #expect(Self.mdc(stamp["code"]).allSatisfy(Self.clockTypes.contains) && !Self.mdc(stamp["code"]).isEmpty)
        let subject = try #require(Self.reference(stamp["subject"]).flatMap { byURL[$0] })
        #expect(Self.profiles(subject) == [PHDCoding.deviceProfile])
        let device = try #require(Self.reference(stamp["device"]).flatMap { byURL[$0] })
        #expect(Self.profiles(device) == [PHDCoding.gatewayProfile])
        #expect(stamp["derivedFrom"] == nil && stamp["hasMember"] == nil)
        // Received at 07:31:00 by the gateway; the device's clock, 90 s slow, said 07:29:30.
        #expect(stamp["effectiveDateTime"] as? String == "2026-11-20T07:31:00+01:00")
        #expect(stamp["valueDateTime"] as? String == "2026-11-20T07:29:30+01:00")
        // Both cuff readings point at it; the scale reading (no device time) at none.
        let pointing = try Parsed.resources(text, type: "Observation").filter {
            ($0["extension"] as? [[String: Any]] ?? []).contains {
                $0["url"] as? String == PHDCoding.coincidentTimeStampExtension
            }
        }
        #expect(pointing.count == 2)
    }

    /// "MDC Nomenclature codes": the 32-bit code of each measurement type (IEEE 11073-10101).
    @Test(
        arguments: [
            (QuantityType.bodyMass, UInt16(0x2A9D), "188736"), (.height, 0x2A9D, "188740"),
            (.bodyMassIndex, 0x2A9D, "188752"), (.bodyFatPercentage, 0x2A9C, "188748"),
            (.bodyTemperature, 0x2A1C, "150364"), (.oxygenSaturation, 0x2A5E, "150456"),
            (.heartRate, 0x2A35, "149546"), (.heartRate, 0x2A5F, "149530"), (.heartRate, 0x2A37, "147842"),
            (.meanArterialPressure, 0x2A35, "150023"), (.bloodGlucose, 0x2A18, "160364"),
        ]
    )
    func measurementTypesCarryTheirMDCCode(type: QuantityType, characteristic: UInt16, code: String) throws {
        let value: Double = type == .height ? 1.7 : 50
        let sample = Fixtures.sample(type, value, source: Fixtures.device(Fixtures.scale, uuid: characteristic))
        let (text, _) = try Fixtures.fhir([ExportRecord(sample: sample)])
        let observation = try #require(try Parsed.resources(text, type: "Observation").first)
        #expect(Parsed.mdcCodes(observation) == [code])
    }

    @Test func bloodPressureComponentsCarryTheirMDCCodes() throws {
        let (text, _) = try bundle()
        let panel = try #require(
            try Parsed.resources(text, type: "Observation").first { Parsed.codes($0) == ["85354-9"] }
        )
        #expect(Parsed.mdcCodes(panel) == ["150020"])
        let components = try #require(panel["component"] as? [[String: Any]])
        #expect(components.map { Self.mdc($0["code"]) } == [["150021"], ["150022"]])
    }
}
