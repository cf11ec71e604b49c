import BridgeCore
import BridgeFoundation
import GATTDecoding
import Testing

/// Object mode (weighing a parcel, not a person) on both Mi scales: the frame decodes and says so, but never
/// becomes the patient's body mass or impedance. Frames built from `gatt-reference.md` §12 and theengs/decoder.
@Suite struct MiScaleObjectModeTests {
    @Test func v1ObjectModeFrameDecodesButGivesNoBodyMass() throws {
        // control 0x60: bit 5 stabilised, bit 6 object mode; 14500 / 200 = 72.5 kg; 2024-03-15 07:30:00.
        let frame = hex("60 A4 38 E8 07 03 0F 07 1E 00")
        let decoded = try MiScaleV1.decode(frame)
        #expect(decoded.isObjectMode)
        #expect(decoded.isFinal)
        #expect(decoded.fields["mode"] == .string("object"))
        #expect(try samples(MiScaleV1.self, frame).isEmpty)
        // The same frame in person mode is the weigh-in.
        let person = hex("20 A4 38 E8 07 03 0F 07 1E 00")
        #expect(try MiScaleV1.decode(person).fields["mode"] == .string("person"))
        #expect(try samples(MiScaleV1.self, person).map(\.value) == [72.5])
    }

    @Test func everyV1ControlBit() throws {
        // bit 0 lb, bit 4 jin, bit 5 stabilised, bit 6 object, bit 7 load removed; bits 1–3 change nothing.
        for bit in 0..<8 {
            let control = UInt8(0x20) | UInt8(1 << bit)
            let frame = [control, 0xA4, 0x38, 0xE8, 0x07, 0x03, 0x0F, 0x07, 0x1E, 0x00]
            let decoded = try MiScaleV1.decode(frame)
            let produced = try samples(MiScaleV1.self, frame)
            switch bit {
            case 0: #expect(decoded.weightUnit == .pound && produced.count == 1)
            case 4: #expect(decoded.weightUnit == .jin && produced.count == 1)
            case 6: #expect(decoded.isObjectMode && produced.isEmpty)
            case 7: #expect(decoded.isLoadRemoved && produced.isEmpty)
            default: #expect(decoded.weightUnit == .kilogram && produced.count == 1, "bit \(bit)")
            }
        }
    }

    @Test func bodyCompositionScaleObjectModeGivesNeitherMassNorImpedance() throws {
        // control 0 = 0x06 (bit 1 as in every frame, bit 2 object mode), control 1 = 0x22 (stabilised, impedance
        // valid), 2024-03-15 07:30:00, impedance 500 Ω, 72.5 kg.
        let object = hex("06 22 E8 07 03 0F 07 1E 00 F4 01 A4 38")
        let decoded = try MiBodyCompositionScale2.decode(object)
        #expect(decoded.isObjectMode)
        #expect(decoded.fields["mode"] == .string("object"))
        #expect(try samples(MiBodyCompositionScale2.self, object).isEmpty)
        let person = hex("02 22 E8 07 03 0F 07 1E 00 F4 01 A4 38")
        #expect(try samples(MiBodyCompositionScale2.self, person).map(\.type) == [.bodyMass, .bodyImpedance])
    }

    @Test func everyBodyCompositionScaleControlBit() throws {
        for bit in 0..<16 {
            var control: [UInt8] = [0x02, 0x22]
            control[bit / 8] |= UInt8(1 << (bit % 8))
            let frame = control + hex("E8 07 03 0F 07 1E 00 F4 01 A4 38")
            let decoded = try MiBodyCompositionScale2.decode(frame)
            let types = try samples(MiBodyCompositionScale2.self, frame).map(\.type)
            switch bit {
            case 0: #expect(decoded.weightUnit == .pound && types == [.bodyMass, .bodyImpedance])
            case 2: #expect(decoded.isObjectMode && types.isEmpty)
            case 14: #expect(decoded.weightUnit == .jin && types == [.bodyMass, .bodyImpedance])
            case 15: #expect(decoded.isLoadRemoved && types.isEmpty)
            default: #expect(types == [.bodyMass, .bodyImpedance], "bit \(bit)")
            }
        }
    }
}
