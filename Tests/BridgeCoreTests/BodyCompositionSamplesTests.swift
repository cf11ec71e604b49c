import BridgeCore
import Foundation
import GATTDecoding
import Testing

@Suite struct BodyCompositionSamplesTests {
    private let zone = TimeZone(identifier: "Europe/Berlin")!

    private func samples(_ bytes: [UInt8]) throws -> [QuantitySample] {
        let context = SampleContext(
            receivedAt: Date(timeIntervalSince1970: 1_700_000_000),
            timeZone: zone,
            source: .device(BodyCompositionMeasurement.self),
            payload: bytes
        )
        return try BodyCompositionMeasurement.decode(bytes).samples(in: context).map { QuantitySample($0) }
    }

    @Test func everyFieldBecomesItsQuantityInCanonicalUnits() throws {
        let payload: [UInt8] = [
            0xFE, 0x0F,  // flags 0x0FFE: SI, every optional field
            0xE0, 0x00,  // body fat 22.4 %
            0xE8, 0x07, 0x03, 0x0F, 0x07, 0x1E, 0x00,  // 2024-03-15 07:30:00
            0x02,  // user 2
            0x70, 0x17,  // basal metabolism 6000 kJ
            0xC2, 0x01,  // muscle percentage 45.0 % (no quantity type)
            0xA0, 0x1D,  // muscle mass 37.92 kg
            0x20, 0x2A,  // fat free mass 53.92 kg
            0x40, 0x1F,  // soft lean mass 40.0 kg (no quantity type)
            0x00, 0x19,  // body water mass 32.0 kg
            0x88, 0x13,  // impedance 500.0 Ω
            0xB0, 0x36,  // weight 70.0 kg
            0xD0, 0x06,  // height 1.744 m
        ]
        let samples = try samples(payload)
        #expect(
            samples.map(\.type) == [
                .bodyFatPercentage, .basalEnergyBurned, .muscleMass, .leanBodyMass, .bodyWaterMass, .bodyImpedance,
                .bodyMass, .height,
            ]
        )
        let byType = Dictionary(uniqueKeysWithValues: samples.map { ($0.type, $0) })
        #expect(byType[.bodyFatPercentage]?.value == 22.4)
        #expect(byType[.bodyFatPercentage]?.unit == .percent)
        let basal = try #require(byType[.basalEnergyBurned])
        #expect(basal.unit == .kilocalorie)
        #expect(abs(basal.value - 6000 / 4.184) < 1e-9)  // 1434.034416826…
        #expect(basal.transmittedValue == 6000)
        #expect(basal.transmittedUnit == .kilojoule)
        #expect(byType[.muscleMass]?.value == 37.92)
        #expect(byType[.leanBodyMass]?.value == 53.92)
        #expect(byType[.bodyWaterMass]?.value == 32.0)
        #expect(byType[.bodyImpedance]?.value == 500.0)
        #expect(byType[.bodyImpedance]?.unit == .ohm)
        #expect(byType[.bodyMass]?.value == 70.0)
        #expect(byType[.height]?.value == 1.744)
        for sample in samples {
            #expect(sample.unit == sample.type.canonicalUnit)
            #expect(Timestamp.format(sample.start, in: zone) == "2024-03-15T07:30:00+01:00")
            #expect(sample.metadata["userID"] == "2")
            #expect(sample.rawPayload == payload)
        }
        #expect(Set(samples.map(\.id)).count == samples.count)
    }

    @Test func imperialMassesAndHeightAreConvertedExactly() throws {
        let payload: [UInt8] = [
            0x61, 0x0E,  // flags 0x0E61: imperial, muscle mass, fat free mass, impedance, weight, height
            0x2C, 0x01,  // body fat 30.0 %
            0x10, 0x27,  // muscle mass 100.00 lb
            0x98, 0x3A,  // fat free mass 150.00 lb
            0xE8, 0x03,  // impedance 100.0 Ω
            0x80, 0x3E,  // weight 160.00 lb
            0xAF, 0x02,  // height 68.7 in
        ]
        let byType = Dictionary(uniqueKeysWithValues: try samples(payload).map { ($0.type, $0) })
        #expect(byType[.muscleMass]?.value == 100 * 0.453_592_37)
        #expect(byType[.leanBodyMass]?.value == 150 * 0.453_592_37)
        #expect(byType[.bodyMass]?.value == 160 * 0.453_592_37)
        #expect(byType[.bodyMass]?.transmittedValue == 160)
        #expect(byType[.bodyMass]?.transmittedUnit == .pound)
        #expect(byType[.height]?.value == 68.7 * 0.0254)
        #expect(byType[.height]?.transmittedUnit == .inch)
        #expect(byType[.bodyImpedance]?.value == 100)
        #expect(byType[.bodyFatPercentage]?.value == 30)
        #expect(byType.count == 6)
    }

    @Test func absentFieldsGiveNoSamples() throws {
        // the reference example: flags 0x0600 (impedance, weight), 22.4 %, 500.0 Ω, 70.0 kg, no time stamp
        let samples = try samples([0x00, 0x06, 0xE0, 0x00, 0x88, 0x13, 0xB0, 0x36])
        #expect(samples.map(\.type) == [.bodyFatPercentage, .bodyImpedance, .bodyMass])
        #expect(samples.map(\.value) == [22.4, 500.0, 70.0])
        #expect(samples.allSatisfy { $0.start == Date(timeIntervalSince1970: 1_700_000_000) && $0.deviceTime == nil })
    }

    @Test func unsuccessfulMeasurementGivesNoBodyFatAndAWeightThatIsQuarantined() throws {
        // body fat 0xFFFF; a weight sent anyway is not trusted: kept, flagged, quarantined
        let result = try samples([0x00, 0x04, 0xFF, 0xFF, 0xB0, 0x36])
        #expect(result.map(\.type) == [.bodyMass])
        var weight = try #require(result.first).draft
        #expect(weight.metadata["status"] == "measurement unsuccessful")
        SampleScreening().screen(&weight)
        #expect(weight.quarantineReason == "device status says the value is invalid: measurement unsuccessful")
        #expect(try samples([0x04, 0x00, 0xFF, 0xFF, 0x01]).isEmpty)
    }

    @Test func aSinglePacketOfAMultiplePacketMeasurementGivesNoSamplesButTheMergedOneDoes() throws {
        let firstBytes: [UInt8] = [0x00, 0x12, 0xE0, 0x00, 0x88, 0x13]  // 0x1200: impedance, multiple packet
        let secondBytes: [UInt8] = [0x00, 0x14, 0xE0, 0x00, 0xB0, 0x36]  // 0x1400: weight, multiple packet
        #expect(try samples(firstBytes).isEmpty)
        #expect(try samples(secondBytes).isEmpty)
        let merged = try #require(
            try BodyCompositionMeasurement.decode(firstBytes).merged(
                with: BodyCompositionMeasurement.decode(secondBytes)
            )
        )
        let context = SampleContext(
            receivedAt: Date(timeIntervalSince1970: 0),
            timeZone: zone,
            source: .device(BodyCompositionMeasurement.self),
            payload: firstBytes + secondBytes
        )
        let samples = merged.samples(in: context)
        #expect(samples.map(\.type) == [.bodyFatPercentage, .bodyImpedance, .bodyMass])
        #expect(samples.map(\.value) == [22.4, 500.0, 70.0])
    }
}
