import Foundation
import Testing

@Suite struct DecodeCommandTests {
    @Test func printsFieldsAndSamplesAsJSON() async throws {
        let result = try await CarebridgeProcess.run(["decode", "--time-zone", "UTC", "2A9D", "02A438E807030F071E00"])
        #expect(result.status == 0)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(json["characteristic"] as? String == "2A9D")
        #expect(json["name"] as? String == "Weight Measurement")
        let samples = try #require(json["samples"] as? [[String: Any]])
        #expect(samples.count == 1)
        #expect(samples.first?["type"] as? String == "bodyMass")
        #expect(samples.first?["value"] as? Double == 72.5)
        #expect(samples.first?["start"] as? String == "2024-03-15T07:30:00+00:00")
    }

    @Test func aDeviceTimeCenturiesOffKeepsTheDevicesTimeAndPutsTheSampleAtTheReceiveTimeWithItsOffset()
        async throws
    {
        // Weight 72.5 kg with a Date Time of 1783-07-14 12:00:00: a year the spec allows, the device clock wrong.
        let before = Date()
        let result = try await CarebridgeProcess.run(["decode", "--time-zone", "UTC", "2A9D", "02A438F706070E0C0000"])
        let after = Date()
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let sample = try #require((json["samples"] as? [[String: Any]])?.first)
        #expect(sample["deviceTime"] as? String == "1783-07-14T12:00:00", "the device's own time stays visible")
        #expect(sample["start"] as? String != "1900-01-01T00:00:00+00:00")
        let start = try #require(
            (sample["start"] as? String).flatMap { ISO8601DateFormatter().date(from: $0) },
            "\(sample)"
        )
        #expect(start >= before.addingTimeInterval(-1) && start <= after.addingTimeInterval(1), "at the receive time")
        #expect((sample["clockOffset"] as? Double ?? 0) > 0, "flagged as corrected, by its offset")
    }

    @Test func malformedPayloadExits65WithOneLine() async throws {
        let result = try await CarebridgeProcess.run(["decode", "0x2a9d", "02A4"])
        #expect(result.status == 65)
        #expect(result.stderr.split(separator: "\n").count == 1)
        #expect(result.stderr.contains("Weight Measurement"))
        #expect(result.stderr.contains("byte 1"))
    }

    @Test func aPayloadLongerThanAnAttributeValueIsRefusedBeforeDecoding() async throws {
        // 60 KB of heart-rate notification: the probe's took gigabytes; 512 bytes is the longest ATT value.
        let long = try await CarebridgeProcess.run(["decode", "2A37", "16" + String(repeating: "48", count: 60_000)])
        #expect(long.status == 65)
        #expect(long.stdout.isEmpty)
        #expect(long.stderr.contains("a payload of 60001 bytes is longer than"), "\(long.stderr)")
        #expect(long.stderr.contains("at most 512 bytes"), "\(long.stderr)")
        #expect(long.stderr.split(separator: "\n").count == 1)
        let spaced = try await CarebridgeProcess.run(["decode", "2A37", "00 48" + String(repeating: " 00", count: 511)])
        #expect(spaced.status == 65 && spaced.stderr.contains("513 bytes"), "\(spaced.stderr)")
        // 512 bytes is the limit, not past it: decoded (an RR-interval list).
        let longest = try await CarebridgeProcess.run([
            "decode", "2A37", "1048" + String(repeating: "0004", count: 255),
        ])
        #expect(longest.status == 0, "\(longest.stderr)")
    }

    @Test func nonHexExits65() async throws {
        let result = try await CarebridgeProcess.run(["decode", "2A9D", "02zz"])
        #expect(result.status == 65)
        #expect(result.stderr.contains("hex"))
    }

    @Test func unknownCharacteristicExits64AndListsSupported() async throws {
        let result = try await CarebridgeProcess.run(["decode", "2A99", "00"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("2A9D"))
    }

    @Test func acceptsFull128BitUUID() async throws {
        let result = try await CarebridgeProcess.run(["decode", "00002A9D-0000-1000-8000-00805F9B34FB", "00A438"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("\"bodyMass\""))
    }
}
