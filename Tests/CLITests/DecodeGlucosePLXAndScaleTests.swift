import Foundation
import Testing

@Suite struct DecodeGlucosePLXAndScaleTests {
    private func json(_ arguments: [String]) async throws -> [String: Any] {
        let result = try await CarebridgeProcess.run(arguments)
        #expect(result.status == 0, "\(result.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
    }

    @Test func miBodyCompositionScale2ServiceDataGivesMassAndImpedance() async throws {
        let object = try await json([
            "decode", "--time-zone", "UTC", "--service-data", "181B", "0022E807030F071E00F401A438",
        ])
        #expect(object["serviceData"] as? String == "181B")
        #expect(object["decoder"] as? String == "mi-body-composition-scale-2")
        let fields = try #require(object["fields"] as? [String: Any])
        #expect(fields["impedanceValid"] as? Bool == true)
        #expect(fields["weight"] as? Double == 72.5)
        let samples = try #require(object["samples"] as? [[String: Any]])
        #expect(samples.map { $0["type"] as? String } == ["bodyMass", "bodyImpedance"])
        #expect(samples.map { $0["value"] as? Double } == [72.5, 500])
        #expect(samples.first?["start"] as? String == "2024-03-15T07:30:00+00:00")
    }

    @Test func miScaleV1ServiceData() async throws {
        let object = try await json([
            "decode", "--time-zone", "UTC", "--service-data", "0x181d", "20 A4 38 E8 07 03 0F 07 1E 00",
        ])
        #expect(object["name"] as? String == "Xiaomi Mi Scale v1")
        let samples = try #require(object["samples"] as? [[String: Any]])
        #expect(samples.first?["value"] as? Double == 72.5)
    }

    @Test func glucoseMeasurementGivesMilligramsPerDecilitre() async throws {
        let object = try await json(["decode", "--time-zone", "UTC", "2A18", "020500E807030F071E005FB012"])
        let samples = try #require(object["samples"] as? [[String: Any]])
        #expect(samples.count == 1)
        #expect(samples.first?["type"] as? String == "bloodGlucose")
        #expect(samples.first?["value"] as? Double == 95)
        #expect(samples.first?["unit"] as? String == "mg/dL")
        #expect((samples.first?["metadata"] as? [String: Any])?["sequenceNumber"] as? String == "5")
    }

    @Test func plxSpotCheckGivesSaturationAndHeartRate() async throws {
        let object = try await json(["decode", "2A5E", "0061004000"])
        let samples = try #require(object["samples"] as? [[String: Any]])
        #expect(samples.map { $0["type"] as? String } == ["oxygenSaturation", "heartRate"])
        #expect(samples.map { $0["value"] as? Double } == [97, 64])
    }

    @Test func racpResponseAndDeviceInformationShowFieldsWithoutSamples() async throws {
        let racp = try await json(["decode", "2A52", "06000101"])
        #expect((racp["fields"] as? [String: Any])?["responseValueName"] as? String == "success")
        #expect((racp["samples"] as? [Any])?.isEmpty == true)
        let manufacturer = try await json(["decode", "2A29", "41264400 2020"])
        #expect((manufacturer["fields"] as? [String: Any])?["value"] as? String == "A&D")
    }

    @Test func truncatedScaleFrameExits65NamingTheFormatAndOffset() async throws {
        let result = try await CarebridgeProcess.run(["decode", "--service-data", "181B", "0022E807"])
        #expect(result.status == 65)
        #expect(result.stderr.contains("Mi Body Composition Scale 2"))
        #expect(result.stderr.contains("byte 2"))
    }

    @Test func unknownServiceDataExits64ListingTheScales() async throws {
        let result = try await CarebridgeProcess.run(["decode", "--service-data", "1809", "00"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("181B"))
        #expect(result.stderr.contains("181D"))
    }
}
