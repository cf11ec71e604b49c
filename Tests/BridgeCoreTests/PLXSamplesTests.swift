import BridgeCore
import Foundation
import GATTDecoding
import Testing

@Suite struct PLXSamplesTests {
    private let received = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func spotCheckDocumentExampleGivesSaturationAndPulseAtTheReceiveTime() throws {
        // 00 61 00 40 00 → SpO2 97 %, PR 64 bpm, no timestamp
        let result = try samples(PLXSpotCheckMeasurement.self, hex("00 61 00 40 00"), receivedAt: received)
        #expect(result.map(\.type) == [.oxygenSaturation, .heartRate])
        #expect(result.map(\.value) == [97, 64])
        #expect(result.map(\.unit) == [.percent, .perMinute])
        #expect(result.allSatisfy { $0.start == received && $0.deviceTime == nil })
        #expect(
            result.allSatisfy {
                $0.metadata.filter { !$0.key.hasPrefix("resolution.") } == ["measurement": "spot-check"]
            }
        )
    }

    @Test func spotCheckUsesItsTimestampUnlessTheClockIsNotSet() throws {
        let stamped = [0x01, 0x61, 0x00, 0x40, 0x00] + DateTime.example.bytes
        let result = try samples(PLXSpotCheckMeasurement.self, stamped, receivedAt: received)
        #expect(result.count == 2)
        #expect(result.allSatisfy { berlinTime($0.start) == "2024-03-15T07:30:00+01:00" && $0.deviceTime == .example })
        // flag bit 4: device clock not set → the timestamp is ignored
        let unset = [0x11, 0x61, 0x00, 0x40, 0x00] + DateTime.example.bytes
        let ignored = try samples(PLXSpotCheckMeasurement.self, unset, receivedAt: received)
        #expect(ignored.count == 2)
        #expect(ignored.allSatisfy { $0.start == received && $0.deviceTime == nil })
    }

    @Test func specialValuesDropOnlyTheirQuantity() throws {
        let noSpO2 = try samples(PLXSpotCheckMeasurement.self, hex("00 FF 07 40 00"))
        #expect(noSpO2.map(\.type) == [.heartRate])
        let noPulse = try samples(PLXContinuousMeasurement.self, hex("00 62 00 00 08"))
        #expect(noPulse.map(\.type) == [.oxygenSaturation])
        #expect(try samples(PLXSpotCheckMeasurement.self, hex("00 FF 07 FF 07")).isEmpty)
    }

    @Test func statusBitsThatAreNotClinicalSuppressEverySample() throws {
        // ongoing, early estimate, demonstration, testing: no sample. Unavailable, questionable, invalid (13–15):
        // samples that the safety stage quarantines.
        let excluded: Set<Int> = [5, 6, 10, 11]
        for bit in 0..<16 {
            let status = UInt16(1) << bit
            let spot = [0x02, 0x61, 0x00, 0x40, 0x00, UInt8(status & 0xFF), UInt8(status >> 8)]
            let continuous = [0x04, 0x62, 0x00, 0x48, 0x00, UInt8(status & 0xFF), UInt8(status >> 8)]
            let expected = excluded.contains(bit) ? 0 : 2
            #expect(try samples(PLXSpotCheckMeasurement.self, spot).count == expected, "bit \(bit)")
            #expect(try samples(PLXContinuousMeasurement.self, continuous).count == expected, "bit \(bit)")
            for var sample in try samples(PLXSpotCheckMeasurement.self, spot).map(\.draft) {
                SampleScreening().screen(&sample)
                #expect(sample.isQuarantined == (13...15).contains(bit), "bit \(bit)")
            }
        }
    }

    @Test func statusNamesGoIntoTheMetadata() throws {
        // validated data; low perfusion; PAI 5.2 %
        let payload = hex("0E 61 00 40 00 80 00 20 00 00 34 F0")
        let sample = try #require(try samples(PLXSpotCheckMeasurement.self, payload).first)
        #expect(
            sample.metadata == [
                "measurement": "spot-check", "measurementStatus": "validated data",
                "deviceAndSensorStatus": "low perfusion detected", "pulseAmplitudeIndex": "5.2 %",
                "resolution.oxygenSaturation": "1e0", "resolution.heartRate": "1e0",
            ]
        )
    }

    @Test func continuousDocumentExampleUsesTheNormalValuesAndTheReceiveTime() throws {
        // 00 62 00 48 00 → SpO2 98 %, PR 72 bpm; with Fast and Slow present they stay in the fields only
        for payload in [hex("00 62 00 48 00"), hex("03 62 00 48 00 61 00 49 00 60 00 47 00")] {
            let result = try samples(PLXContinuousMeasurement.self, payload, receivedAt: received)
            #expect(result.map(\.value) == [98, 72])
            #expect(result.map(\.type) == [.oxygenSaturation, .heartRate])
            #expect(result.allSatisfy { $0.start == received && $0.metadata["measurement"] == "continuous" })
        }
    }
}
