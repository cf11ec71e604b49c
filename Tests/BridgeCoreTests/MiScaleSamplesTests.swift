import BridgeCore
import Foundation
import GATTDecoding
import Testing

@Suite struct MiScaleSamplesTests {
    private let stamp = DateTime.example.bytes

    @Test func v1DocumentExampleIsBodyMassAtTheFrameTime() throws {
        // 20 A4 38 E8 07 03 0F 07 1E 00 → stabilised, 72.5 kg, 2024-03-15 07:30:00
        let result = try samples(MiScaleV1.self, hex("20 A4 38 E8 07 03 0F 07 1E 00"))
        let sample = try #require(result.first)
        #expect(result.count == 1)
        #expect(sample.type == .bodyMass)
        #expect(sample.value == 72.5)
        #expect(sample.unit == .kilogram)
        #expect(berlinTime(sample.start) == "2024-03-15T07:30:00+01:00")
    }

    @Test(arguments: [
        (UInt8(0x20), 72.5, HealthUnit.kilogram, 72.5),  // 14500 / 200 kg
        (0x21, 145.0, .pound, 145 * 0.453_592_37),  // 14500 / 100 lb
        (0x30, 145.0, .jin, 72.5),  // 14500 / 100 jin × 0.5
    ])
    func v1UnitsConvertExactly(control: UInt8, transmitted: Double, unit: HealthUnit, kilograms: Double) throws {
        let sample = try #require(try samples(MiScaleV1.self, [control, 0xA4, 0x38] + stamp).first)
        #expect(sample.value == kilograms)
        #expect(sample.transmittedValue == transmitted)
        #expect(sample.transmittedUnit == unit)
    }

    @Test func v1OnlyAFinalFrameGivesASample() throws {
        for control in 0...255 {
            // stabilised, load not removed, not object mode (bit 6)
            let expected = control & 0x20 != 0 && control & 0x80 == 0 && control & 0x40 == 0
            #expect(
                try samples(MiScaleV1.self, [UInt8(control), 0xA4, 0x38] + stamp).count == (expected ? 1 : 0),
                "\(control)"
            )
            #expect(try samples(MiScaleV1.self, [UInt8(control), 0x00, 0x00] + stamp).isEmpty)
        }
    }

    @Test func bcs2DocumentExampleIsBodyMassAndImpedance() throws {
        // 00 22 E8 07 03 0F 07 1E 00 F4 01 A4 38 → stabilised, impedance valid, 500 Ω, 72.5 kg
        let result = try samples(MiBodyCompositionScale2.self, hex("00 22 E8 07 03 0F 07 1E 00 F4 01 A4 38"))
        #expect(result.map(\.type) == [.bodyMass, .bodyImpedance])
        #expect(result.map(\.value) == [72.5, 500])
        #expect(result.map(\.unit) == [.kilogram, .ohm])
        #expect(result.allSatisfy { berlinTime($0.start) == "2024-03-15T07:30:00+01:00" })
    }

    @Test(arguments: [
        (UInt8(0x00), UInt8(0x20), [QuantityType.bodyMass]),  // stabilised, impedance not valid
        (0x00, 0x22, [.bodyMass, .bodyImpedance]),
        (0x00, 0x02, []),  // impedance valid but not stabilised
        (0x00, 0xA2, []),  // load removed
        (0x00, 0x62, [.bodyMass, .bodyImpedance]),  // jin
        (0x01, 0x22, [.bodyMass, .bodyImpedance]),  // lb
    ])
    func bcs2SamplesFollowTheControlBits(control0: UInt8, control1: UInt8, types: [QuantityType]) throws {
        let payload = [control0, control1] + stamp + [0xF4, 0x01, 0xA4, 0x38]
        let result = try samples(MiBodyCompositionScale2.self, payload)
        #expect(result.map(\.type) == types)
        if let mass = result.first {
            #expect(mass.value == (control0 & 1 != 0 ? 145 * 0.453_592_37 : 72.5))
        }
    }

    @Test func bcs2ZeroImpedanceOrZeroWeightGivesNoSampleForIt() throws {
        #expect(
            try samples(MiBodyCompositionScale2.self, [0x00, 0x22] + stamp + [0x00, 0x00, 0xA4, 0x38]).map(\.type) == [
                .bodyMass
            ]
        )
        #expect(try samples(MiBodyCompositionScale2.self, [0x00, 0x22] + stamp + [0xF4, 0x01, 0x00, 0x00]).isEmpty)
    }
}
