import BridgeCore
import BridgeFoundation
import Foundation
import GATTDecoding
import TestSupport
import Testing

/// Random and mutated payloads never trap the body-composition, thermometer, heart-rate and blood-pressure
/// decoders, their fields or their normalisation: every payload either decodes or throws a
/// ``GATTDecodingError``.
@Suite struct HealthDecodersRobustnessTests {
    /// A small deterministic generator (SplitMix64), so a failure can be reproduced.
    /// Each decoder with a valid seed payload to mutate.
    static let cases: [(any GATTPayload.Type, [UInt8])] = [
        (WeightScaleFeature.self, [0x9D, 0x01, 0x00, 0x00]),
        (
            BodyCompositionMeasurement.self,
            [
                0xFE, 0x0F, 0xE0, 0x00, 0xE8, 0x07, 0x03, 0x0F, 0x07, 0x1E, 0x00, 0x02, 0x70, 0x17, 0xC2, 0x01, 0xA0,
                0x1D, 0x20, 0x2A, 0x40, 0x1F, 0x00, 0x19, 0x88, 0x13, 0xB0, 0x36, 0xD0, 0x06,
            ]
        ),
        (BodyCompositionFeature.self, [0xFF, 0x9F, 0x01, 0x00]),
        (TemperatureMeasurement.self, [0x07, 0xDA, 0x03, 0x00, 0xFF, 0xE8, 0x07, 0x03, 0x0F, 0x07, 0x1E, 0x00, 0x03]),
        (IntermediateTemperature.self, [0x07, 0xDA, 0x03, 0x00, 0xFF, 0xE8, 0x07, 0x03, 0x0F, 0x07, 0x1E, 0x00, 0x03]),
        (TemperatureType.self, [0x06]),
        (HeartRateMeasurement.self, [0x1F, 0x48, 0x00, 0x10, 0x00, 0x40, 0x03, 0x00, 0x04]),
        (BodySensorLocation.self, [0x01]),
        (
            BloodPressureMeasurement.self,
            [
                0x1F, 0x82, 0x00, 0x55, 0x00, 0x64, 0x00, 0xE8, 0x07, 0x03, 0x0F, 0x07, 0x1E, 0x00, 0xDC, 0xF2, 0x01,
                0x05, 0x00,
            ]
        ),
        (
            IntermediateCuffPressure.self,
            [
                0x1E, 0x8C, 0x00, 0xFF, 0x07, 0xFF, 0x07, 0xE8, 0x07, 0x03, 0x0F, 0x07, 0x1E, 0x00, 0x40, 0x00, 0x02,
                0x00, 0x00,
            ]
        ),
        (BloodPressureFeature.self, [0x05, 0x00]),
    ]

    /// What a run found: the loop runs on ``CPUBoundWork``'s thread, where `#expect` has no test to report to.
    struct Findings: Sendable {
        var decoded = 0
        var rejected = 0
        var problems: [String] = []
    }

    @Test(arguments: 0..<cases.count)
    func randomAndMutatedPayloadsDecodeOrThrowButNeverTrap(index: Int) async throws {
        // Seconds of CPU in a debug build: off the cooperative pool, so tests that wait on time are not starved.
        let found = await CPUBoundWork.run { Self.mutate(index: index) }
        #expect(found.problems.isEmpty, "\(found.problems.prefix(3))")
        #expect(found.decoded + found.rejected == 20_000)
        #expect(found.decoded > 0)
    }

    private static func mutate(index: Int) -> Findings {
        let (decoder, seed) = Self.cases[index]
        var generator = SplitMix64(state: UInt64(index + 1))
        var found = Findings()
        for round in 0..<20_000 {
            var payload: [UInt8]
            if round % 2 == 0 {
                // random length and bytes
                payload = (0..<Int.random(in: 0...32, using: &generator)).map { _ in
                    UInt8.random(in: 0...255, using: &generator)
                }
            } else {
                // the valid payload with a few bytes flipped, cut or extended
                payload = seed
                for _ in 0..<Int.random(in: 1...3, using: &generator) where !payload.isEmpty {
                    payload[Int.random(in: 0..<payload.count, using: &generator)] = UInt8.random(
                        in: 0...255,
                        using: &generator
                    )
                }
                switch Int.random(in: 0..<3, using: &generator) {
                case 0: payload.removeLast(Int.random(in: 0...payload.count, using: &generator))
                case 1: payload += [UInt8.random(in: 0...255, using: &generator)]
                default: break
                }
            }
            do {
                let value = try decoder.decode(payload)
                _ = value.fields.keys.count
                if let producing = value as? any SampleProducing {
                    let context = SampleContext(
                        receivedAt: Date(timeIntervalSince1970: 0),
                        timeZone: .gmt,
                        source: .device(decoder),
                        payload: payload
                    )
                    for sample in producing.samples(in: context)
                    where !sample.value.isFinite || sample.unit != sample.type.canonicalUnit {
                        found.problems.append("\(Hex.string(payload)): \(sample.type) \(sample.value) \(sample.unit)")
                    }
                }
                found.decoded += 1
            } catch {
                if !error.context.hasPrefix(decoder.name) || error.offset < 0 || error.offset > payload.count {
                    found.problems.append("\(Hex.string(payload)): \(error)")
                }
                found.rejected += 1
            }
        }
        return found
    }
}
