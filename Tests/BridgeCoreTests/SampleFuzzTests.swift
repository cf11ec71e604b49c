import BridgeCore
import BridgeFoundation
import Foundation
import GATTDecoding
import TestSupport
import Testing

// SplitMix64 comes from TestSupport.

/// Valid payloads to mutate for the sample-producing decoders (others grow a corpus from random input).
private let sampleSeeds: [String: [[UInt8]]] = [
    "weight-measurement": [hex("0E A4 38 E8 07 03 0F 07 1E 00 05 18 01 D0 06"), hex("09 80 3E F3 00 AF 02")],
    "glucose-measurement": [
        hex("1B 02 01 E8 07 03 0F 07 1E 00 A6 FF 78 B0 11 21 00"), hex("06 05 00 E8 07 03 0F 07 1E 00 37 C0 12"),
    ],
    "plx-spot-check-measurement": [
        hex("0F 61 00 40 00 E8 07 03 0F 07 1E 00 80 01 20 00 00 34 F0"), hex("00 61 00 40 00"),
    ],
    "plx-continuous-measurement": [hex("1F 62 00 48 00 61 00 49 00 60 00 47 00 00 01 10 00 00 34 F0")],
    "body-composition-measurement": [hex("00 06 E0 00 88 13 B0 36")],
    "temperature-measurement": [hex("06 6D 01 00 FF E8 07 03 0F 07 1E 00 06")],
    "heart-rate-measurement": [hex("16 48 40 03"), hex("19 48 00 10 00 40 03 00 04")],
    // GHS 1.0 §3 layout: SpO2 96 % with an Elapsed Time stamp; a stored record 1 of SpO2 97 %.
    "live-health-observations": [hex("03 01 1800 0300 b84b0200 00 d82692320000 00 00 2002 60000000")],
    "stored-health-observations": [hex("03 01000000 01 1800 0300 b84b0200 00 fc1390320000 00 00 2002 61000000")],
    "blood-pressure-measurement": [hex("1E 78 00 50 00 5D 00 E8 07 03 0F 07 1E 00 40 00 01 04 00")],
    "mi-scale-v1": [hex("20 A4 38 E8 07 03 0F 07 1E 00"), hex("21 A4 38 E8 07 03 0F 07 1E 00")],
    "mi-body-composition-scale-2": [
        hex("00 22 E8 07 03 0F 07 1E 00 F4 01 A4 38"), hex("01 62 E8 07 03 0F 07 1E 00 F4 01 A4 38"),
    ],
]

@Suite struct SampleFuzzTests {
    static let iterations = 100_000

    /// Every sample-producing decoder in the catalogue (including ones added later): 100 000 random and mutated
    /// payloads; whatever decodes must normalise without trapping, into finite values with sensible times.
    @Test(arguments: DecoderCatalog.all.filter { $0 is any SampleProducing.Type }.map { $0.identifier })
    func normalisationNeverTrapsAndYieldsFiniteValues(identifier: String) async throws {
        let decoder = try #require(DecoderCatalog.decoder(identifier: identifier) as? any SampleProducing.Type)
        let seeds = sampleSeeds[identifier] ?? []
        // Seconds of CPU in a debug build: off the cooperative pool, so tests that wait on time are not starved.
        let report = await CPUBoundWork.run { Self.fuzz(decoder, seeds: seeds) }
        #expect(report.decoded > 0, "no payload decoded")
        // Decoders that never make samples (intermediate readings) are exempt; the others must get there.
        if try seedsProduceSamples(decoder, seeds) {
            #expect(report.samples > 0, "no payload produced a sample: the fuzzer never reached normalisation")
        }
        #expect(report.problems.isEmpty, "\(report.problems.prefix(3))")
    }

    @Test func theMiScalesAndGlucoseAndPLXDecodersProduceSamples() {
        for identifier in [
            "glucose-measurement", "plx-spot-check-measurement", "plx-continuous-measurement", "mi-scale-v1",
            "mi-body-composition-scale-2",
        ] {
            #expect(DecoderCatalog.decoder(identifier: identifier) is any SampleProducing.Type, "\(identifier)")
        }
    }

    @Test func everySeedDecodesAndTheMeasurementSeedsProduceSamples() throws {
        for (identifier, seeds) in sampleSeeds {
            let decoder = try #require(
                DecoderCatalog.decoder(identifier: identifier) as? any SampleProducing.Type,
                "\(identifier)"
            )
            #expect(try seedsProduceSamples(decoder, seeds), "\(identifier)")
        }
    }

    private func seedsProduceSamples<T: SampleProducing>(_: T.Type, _ seeds: [[UInt8]]) throws -> Bool {
        let context = SampleContext(receivedAt: Date(), timeZone: .gmt, source: .device(T.self), payload: [])
        return try seeds.contains { !(try T.decode($0).samples(in: context)).isEmpty }
    }

    struct Report: Sendable {
        var decoded = 0
        var samples = 0
        var problems: [String] = []
    }

    private static func fuzz<T: SampleProducing>(_: T.Type, seeds: [[UInt8]]) -> Report {
        var rng = SplitMix64(state: 0x5A3B_1E5 ^ UInt64(T.identifier.utf8.count))
        var corpus = seeds
        var report = Report()
        let zone = TimeZone(identifier: "Europe/Berlin")!
        let received = Date(timeIntervalSince1970: 1_800_000_000)
        let source = SampleSource.device(T.self)
        for _ in 0..<Self.iterations {
            var payload: [UInt8]
            if corpus.isEmpty || rng.below(4) == 0 {
                payload = (0..<rng.below(41)).map { _ in rng.byte() }
            } else {
                payload = corpus[rng.below(corpus.count)]
                switch rng.below(4) {
                case 0:
                    for _ in 0...rng.below(4) where !payload.isEmpty {
                        payload[rng.below(payload.count)] ^= 1 << UInt8(rng.below(8))
                    }
                case 1: payload.removeLast(payload.count - rng.below(payload.count + 1))
                case 2: payload += (0..<1 + rng.below(8)).map { _ in rng.byte() }
                default: if !payload.isEmpty { payload[rng.below(payload.count)] = rng.byte() }
                }
            }
            guard let value = try? T.decode(payload) else { continue }
            report.decoded += 1
            if report.decoded % 16 == 1, corpus.count < 256 { corpus.append(payload) }
            let context = SampleContext(receivedAt: received, timeZone: zone, source: source, payload: payload)
            for sample in value.samples(in: context) {
                report.samples += 1
                // ±∞ only for a LO/HI reading (its comparator says which); never NaN.
                let finite = sample.value.isFinite && sample.transmittedValue.isFinite
                let bounded = sample.comparator != nil && !sample.value.isNaN && !sample.transmittedValue.isNaN
                if !(finite || bounded) || !sample.start.timeIntervalSince1970.isFinite
                    || sample.unit != sample.type.canonicalUnit
                {
                    report.problems.append("\(Hex.string(payload)): \(sample.type) \(sample.value) \(sample.unit)")
                }
            }
        }
        return report
    }
}
