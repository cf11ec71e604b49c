import Foundation
import Testing

/// `carebridge decode` on the reference examples of `gatt-reference.md` §5–§8.
@Suite struct HealthDecodersCommandTests {
    private func decode(_ uuid: String, _ hex: String) async throws -> [String: Any] {
        let result = try await CarebridgeProcess.run(["decode", "--time-zone", "UTC", "--no-pretty", uuid, hex])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
    }

    private func samples(_ json: [String: Any]) -> [(String, Double)] {
        (json["samples"] as? [[String: Any]] ?? []).map {
            ($0["type"] as? String ?? "?", $0["value"] as? Double ?? .nan)
        }
    }

    @Test func temperatureMeasurementExample() async throws {
        let json = try await decode("2A1C", "04 6D 01 00 FF 06")
        #expect(json["name"] as? String == "Temperature Measurement")
        let fields = try #require(json["fields"] as? [String: Any])
        #expect(fields["temperatureType"] as? String == "mouth")
        #expect(samples(json).map(\.0) == ["bodyTemperature"])
        #expect(samples(json).map(\.1) == [36.5])
    }

    @Test func heartRateMeasurementExample() async throws {
        let json = try await decode("2A37", "16 48 40 03")
        #expect(samples(json).map(\.0) == ["heartRate", "rrInterval"])
        #expect(samples(json).map(\.1) == [72, 812.5])
    }

    @Test func bloodPressureMeasurementExample() async throws {
        let json = try await decode("0x2a35", "04 78 00 50 00 5D 00 40 00")
        #expect(
            samples(json).map(\.0) == [
                "bloodPressureSystolic", "bloodPressureDiastolic", "meanArterialPressure", "heartRate",
            ]
        )
        #expect(samples(json).map(\.1) == [120, 80, 93, 64])
    }

    @Test func bodyCompositionMeasurementExample() async throws {
        let json = try await decode("2A9C", "00 06 E0 00 88 13 B0 36")
        #expect(samples(json).map(\.0) == ["bodyFatPercentage", "bodyImpedance", "bodyMass"])
        #expect(samples(json).map(\.1) == [22.4, 500, 70])
    }

    @Test func intermediateReadingsShowFieldsButNoSamples() async throws {
        let temperature = try await decode("2A1E", "00 6D 01 00 FF")
        #expect((temperature["fields"] as? [String: Any])?["temperature"] as? Double == 36.5)
        #expect(samples(temperature).isEmpty)
        let cuff = try await decode("2A36", "00 8C 00 FF 07 FF 07")
        #expect((cuff["fields"] as? [String: Any])?["cuffPressure"] as? Double == 140)
        #expect(samples(cuff).isEmpty)
    }

    @Test func malformedValuesExit65NamingTheCharacteristicAndOffset() async throws {
        let rr = try await CarebridgeProcess.run(["decode", "2A37", "1648400340"])
        #expect(rr.status == 65)
        #expect(rr.stderr.contains("Heart Rate Measurement (2A37)"))
        #expect(rr.stderr.contains("byte 4"))
        let type = try await CarebridgeProcess.run(["decode", "2A1D", "0600"])
        #expect(type.status == 65)
        #expect(type.stderr.contains("Temperature Type (2A1D)"))
    }
}
