import BridgeCore
import BridgeFoundation
import Foundation
import GATTDecoding
import Testing

@Suite struct BloodPressureSamplesTests {
    private let received = Date(timeIntervalSince1970: 1_700_000_000)

    private func context(
        _ payload: [UInt8],
        _ type: any GATTPayload.Type = BloodPressureMeasurement.self
    ) -> SampleContext {
        SampleContext(
            receivedAt: received,
            timeZone: TimeZone(identifier: "Europe/Berlin")!,
            source: .device(type),
            payload: payload
        )
    }

    @Test func referenceExampleIsThreePressuresAndAPulse() throws {
        let payload: [UInt8] = [0x04, 0x78, 0x00, 0x50, 0x00, 0x5D, 0x00, 0x40, 0x00]  // 120/80, MAP 93, 64 bpm
        let samples = try BloodPressureMeasurement.decode(payload).samples(in: context(payload))
        #expect(
            samples.map(\.type) == [.bloodPressureSystolic, .bloodPressureDiastolic, .meanArterialPressure, .heartRate]
        )
        #expect(samples.map(\.value) == [120, 80, 93, 64])
        #expect(samples.map(\.unit) == [.millimetreOfMercury, .millimetreOfMercury, .millimetreOfMercury, .perMinute])
        #expect(
            samples.allSatisfy { $0.metadata.keys.allSatisfy { $0.hasPrefix("resolution.") } && $0.start == received }
        )
    }

    @Test func kilopascalIsConvertedToMillimetresOfMercury() throws {
        let payload: [UInt8] = [
            0x01,  // kPa
            0xA0, 0xF0,  // 16.0 kPa
            0x6A, 0xF0,  // 10.6 kPa
            0x7C, 0xF0,  // 12.4 kPa
        ]
        let samples = try BloodPressureMeasurement.decode(payload).samples(in: context(payload))
        #expect(samples.map(\.value) == [16.0 * 7.500615758, 10.6 * 7.500615758, 12.4 * 7.500615758])
        #expect(samples.map(\.transmittedValue) == [16.0, 10.6, 12.4])
        #expect(samples.allSatisfy { $0.transmittedUnit == .kilopascal && $0.unit == .millimetreOfMercury })
    }

    @Test func specialValuesGiveNoSampleForThatQuantityOnly() throws {
        let payload: [UInt8] = [
            0x04,  // pulse rate present
            0x78, 0x00,  // 120
            0x50, 0x00,  // 80
            0xFF, 0x07,  // MAP NaN
            0x00, 0x08,  // pulse NRes
        ]
        let samples = try BloodPressureMeasurement.decode(payload).samples(in: context(payload))
        #expect(samples.map(\.type) == [.bloodPressureSystolic, .bloodPressureDiastolic])
    }

    @Test func userAndStatusGoIntoMetadataAndTheDeviceTimeIsUsed() throws {
        let payload: [UInt8] = [
            0x1A,  // time stamp, user ID, measurement status
            0x82, 0x00,  // 130
            0x55, 0x00,  // 85
            0x64, 0x00,  // 100
            0xE8, 0x07, 0x03, 0x0F, 0x07, 0x1E, 0x00,  // 2024-03-15 07:30:00
            0x01,  // user 1
            0x0D, 0x00,  // body movement, irregular pulse, pulse above upper limit
        ]
        let samples = try BloodPressureMeasurement.decode(payload).samples(in: context(payload))
        #expect(samples.count == 3)
        for sample in samples {
            #expect(
                sample.metadata.filter { !$0.key.hasPrefix("resolution.") } == [
                    "userID": "1", "measurementStatus": "bodyMovement,irregularPulse,pulseRateAboveUpperLimit",
                ]
            )
            #expect(Timestamp.format(sample.start, in: .gmt) == "2024-03-15T06:30:00+00:00")
        }
        let calm: [UInt8] = [0x18, 0x82, 0x00, 0x55, 0x00, 0x64, 0x00, 0xFF, 0x00, 0x00]
        let calmSamples = try BloodPressureMeasurement.decode(calm).samples(in: context(calm))
        #expect(
            calmSamples.first?.metadata.filter { !$0.key.hasPrefix("resolution.") } == [
                "userID": "unknown", "measurementStatus": "none",
            ]
        )
    }

    @Test func unknownDeviceDateFallsBackToTheReceiveTime() throws {
        let payload: [UInt8] = [
            0x02,  // time stamp
            0x78, 0x00, 0x50, 0x00, 0x5D, 0x00,  // 120/80, MAP 93
            0x00, 0x00, 0x00, 0x00, 0x07, 0x1E, 0x00,  // year, month, day 0: date unknown, 07:30:00
        ]
        let value = try BloodPressureMeasurement.decode(payload)
        #expect(value.fields["timeStamp"] == .string("unknown"))
        let samples = value.samples(in: context(payload))
        #expect(samples.count == 3)
        #expect(samples.allSatisfy { $0.start == received && $0.deviceTime == nil })
    }

    @Test func intermediateCuffPressureIsNeverASample() throws {
        let payload: [UInt8] = [0x04, 0x8C, 0x00, 0xFF, 0x07, 0xFF, 0x07, 0x40, 0x00]
        let value = try IntermediateCuffPressure.decode(payload)
        #expect(value.cuffPressure.doubleValue == 140)
        #expect(value.samples(in: context(payload, IntermediateCuffPressure.self)).isEmpty)
    }
}
