import BridgeCore
import Foundation
import GATTDecoding
import Testing

@Suite struct HeartRateSamplesTests {
    private let received = Date(timeIntervalSince1970: 1_700_000_000.25)

    private func samples(_ payload: [UInt8]) throws -> [QuantitySample] {
        let context = SampleContext(
            receivedAt: received,
            timeZone: .gmt,
            source: .device(HeartRateMeasurement.self),
            payload: payload
        )
        return try HeartRateMeasurement.decode(payload).samples(in: context).map { QuantitySample($0) }
    }

    @Test func referenceExampleIsAHeartRateAndOneRRInterval() throws {
        let samples = try samples([0x16, 0x48, 0x40, 0x03])  // 72 bpm, contact detected, RR 832/1024 s
        #expect(samples.map(\.type) == [.heartRate, .rrInterval])
        #expect(samples[0].value == 72)
        #expect(samples[0].unit == .perMinute)
        #expect(samples[1].value == 812.5)
        #expect(samples[1].unit == .millisecond)
        #expect(samples[1].transmittedValue == 832)
        #expect(samples[1].transmittedUnit == .rrTick)
        for sample in samples {
            #expect(sample.metadata == ["sensorContact": "detected"])
            #expect(sample.start == received)
        }
    }

    @Test func everyRRIntervalIsItsOwnSampleWithItsOwnId() throws {
        let withRR: [UInt8] = [
            0x1D,  // flags: uint16 HR, contact not detected (bit 2 set, bit 1 clear → 0b10), EE, RR
            0x50, 0x00,  // 80 bpm
            0x2C, 0x01,  // 300 kJ
            0x00, 0x04,  // 1024 → 1000 ms
            0x00, 0x03,  // 768 → 750 ms
            0x01, 0x00,  // 1 → 0.9765625 ms
            0x00, 0x04,  // 1024 again → 1000 ms
        ]
        let samples = try samples(withRR)
        #expect(samples.map(\.type) == [.heartRate, .rrInterval, .rrInterval, .rrInterval, .rrInterval])
        let rr = samples.filter { $0.type == .rrInterval }
        #expect(rr.map(\.value) == [1000, 750, 0.9765625, 1000])
        #expect(rr.map(\.index) == [0, 1, 2, 3])
        #expect(Set(samples.map(\.id)).count == 5)  // equal intervals in one payload still differ
        #expect(samples.allSatisfy { $0.metadata == ["sensorContact": "notDetected", "energyExpendedKJ": "300"] })
        #expect(samples[0].value == 80)
    }

    @Test func noRRFlagMeansOnlyTheHeartRate() throws {
        let samples = try samples([0x00, 0x3C])  // 60 bpm, contact not supported
        #expect(samples.count == 1)
        #expect(samples[0].value == 60)
        #expect(samples[0].metadata == ["sensorContact": "notSupported"])
    }

    @Test func warmUpHeartRateOfZeroGivesNoHeartRateSample() throws {
        #expect(try samples([0x00, 0x00]).isEmpty)
        #expect(try samples([0x10, 0x00, 0x00, 0x04]).map(\.type) == [.rrInterval])
    }

    @Test func sameNotificationDecodedTwiceHasTheSameIds() throws {
        let payload: [UInt8] = [0x16, 0x48, 0x40, 0x03, 0x40, 0x03]
        #expect(try samples(payload).map(\.id) == samples(payload).map(\.id))
    }

    @Test func fieldsNeverHoldASpecialValueWhateverTheFlags() throws {
        // The pipeline skips looking for no-value fields in heart-rate payloads on this promise.
        #expect(!HeartRateMeasurement.fieldsMayHoldSpecialValues)
        for flags in UInt8.min...UInt8.max {
            // Every field the flags announce, at its extremes: heart rate and energy expended all ones, RR 0 and max.
            var payload: [UInt8] = [flags, 0xFF]
            if flags & 0x01 != 0 { payload.append(0xFF) }
            if flags & 0x08 != 0 { payload += [0xFF, 0xFF] }
            if flags & 0x10 != 0 { payload += [0x00, 0x00, 0xFF, 0xFF] }
            let decoded = try HeartRateMeasurement.decode(payload)
            #expect(NoValueField.find(in: decoded.fields).isEmpty, "flags \(flags)")
        }
    }
}
