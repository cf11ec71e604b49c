import BridgeFoundation
import GATTDecoding
import TestSupport
import Testing

// SplitMix64 (Steele, Lea, Flood 2014) from TestSupport: a tiny deterministic generator, so a failing payload can
// be replayed.

/// Random and mutated payloads: random lengths 0–40, and mutations of valid seeds (bit flips, truncation,
/// extension, overwritten bytes with boundary values, a random flags byte, random tails). Payloads that decode
/// join the seed corpus, so decoders without hand-written seeds still get mutated valid input.
struct PayloadFuzzer {
    var rng: SplitMix64
    var corpus: [[UInt8]]
    private static let interesting: [UInt8] = [0x00, 0x01, 0x02, 0x07, 0x08, 0x0F, 0x10, 0x7F, 0x80, 0xF0, 0xFE, 0xFF]

    init(seed: UInt64, corpus: [[UInt8]]) {
        rng = SplitMix64(state: seed)
        self.corpus = corpus
    }

    /// Appends `count` random bytes, eight from each draw.
    mutating func appendRandom(_ count: Int, to payload: inout [UInt8]) {
        var word = rng.next()
        for index in 0..<count {
            if index % 8 == 7 { word = rng.next() }
            payload.append(UInt8(truncatingIfNeeded: word))
            word >>= 8
        }
    }

    mutating func random(length: Int) -> [UInt8] {
        var payload: [UInt8] = []
        payload.reserveCapacity(length)
        appendRandom(length, to: &payload)
        return payload
    }

    mutating func next() -> [UInt8] {
        var payload: [UInt8] = []
        next(into: &payload)
        return payload
    }

    /// Writes the next payload into `payload`, reusing its storage.
    mutating func next(into payload: inout [UInt8]) {
        payload.removeAll(keepingCapacity: true)
        guard !corpus.isEmpty, rng.below(4) != 0 else {
            appendRandom(rng.below(41), to: &payload)
            return
        }
        payload.append(contentsOf: corpus[rng.below(corpus.count)])
        switch rng.below(6) {
        case 0:  // bit flips
            for _ in 0...rng.below(4) where !payload.isEmpty {
                payload[rng.below(payload.count)] ^= 1 << UInt8(rng.below(8))
            }
        case 1:  // truncation
            payload.removeLast(payload.count - rng.below(payload.count + 1))
        case 2:  // extension
            appendRandom(1 + rng.below(8), to: &payload)
        case 3:  // boundary values
            for _ in 0...rng.below(3) where !payload.isEmpty {
                payload[rng.below(payload.count)] = Self.interesting[rng.below(Self.interesting.count)]
            }
        case 4:  // random flags / op code byte
            if !payload.isEmpty { payload[0] = rng.byte() }
        default:  // keep a prefix, randomise the rest to a random length
            payload.removeLast(payload.count - rng.below(payload.count + 1))
            appendRandom(rng.below(20), to: &payload)
        }
    }

    /// Remembers a payload that decoded, up to a bound.
    mutating func keep(_ payload: [UInt8]) {
        if corpus.count < 256 { corpus.append(payload) } else { corpus[rng.below(corpus.count)] = payload }
    }
}

/// Valid payloads to mutate, by decoder identifier (decoders not listed grow a corpus from random input).
let fuzzSeeds: [String: [[UInt8]]] = [
    "date-time": [DateTime.exampleBytes],
    "weight-measurement": [hex("0E A4 38 E8 07 03 0F 07 1E 00 05 18 01 D0 06"), hex("09 80 3E F3 00 AF 02")],
    "glucose-measurement": [
        hex("1F 02 01 E8 07 03 0F 07 1E 00 A6 FF 78 B0 11 21 00"), hex("02 05 00 E8 07 03 0F 07 1E 00 5F B0 12"),
    ],
    "glucose-measurement-context": [hex("FF 05 00 00 01 05 E0 02 51 08 07 3C 01 02 C0 41 F0"), hex("02 05 00 01")],
    "record-access-control-point": [
        hex("06 00 01 01"), hex("05 00 07 00"), hex("01 03 01 10 00"),
        hex("01 04 02 E8 07 03 0F 07 1E 00 E8 07 03 10 07 1E 00"),
        hex("03 00"),
    ],
    "plx-spot-check-measurement": [
        hex("1F 61 00 40 00 E8 07 03 0F 07 1E 00 80 01 20 00 00 34 F0"), hex("00 61 00 40 00"),
    ],
    "plx-continuous-measurement": [
        hex("1F 62 00 48 00 61 00 49 00 60 00 47 00 00 01 10 00 00 34 F0"), hex("00 62 00 48 00"),
    ],
    "plx-features": [hex("4B 00 E0 01 0A 80 00")],
    "current-time": [hex("E8 07 03 0F 07 1E 00 05 00 01")],
    "battery-level": [hex("5A")],
    "system-id": [hex("01 02 03 04 05 DC 1B 00")],
    "pnp-id": [hex("01 0D 00 34 12 10 01")],
    "weight-scale-feature": [hex("9D 01 00 00")],
    "body-composition-measurement": [hex("00 06 E0 00 88 13 B0 36")],
    "temperature-measurement": [hex("06 6D 01 00 FF E8 07 03 0F 07 1E 00 06")],
    "intermediate-temperature": [hex("04 6D 01 00 FF 06")],
    "heart-rate-measurement": [hex("16 48 40 03"), hex("19 48 00 10 00 40 03 00 04")],
    "blood-pressure-measurement": [
        hex("04 78 00 50 00 5D 00 40 00"), hex("1E 78 00 50 00 5D 00 E8 07 03 0F 07 1E 00 40 00 01 04 00"),
    ],
    "intermediate-cuff-pressure": [hex("00 78 00 FF 07 FF 07")],
    "mi-scale-v1": [hex("20 A4 38 E8 07 03 0F 07 1E 00")],
    "live-health-observations": [HealthObservationTests.liveSpO2, HealthObservationTests.liveBloodPressure],
    "stored-health-observations": [HealthObservationTests.storedSpO2],
    "current-elapsed-time": [hex("02 d82692320000 01 00")],
    "health-sensor-features": [hex("00 02 b84b0200 1a480200")],
    "mi-body-composition-scale-2": [hex("00 22 E8 07 03 0F 07 1E 00 F4 01 A4 38")],
]

@Suite struct FuzzTests {
    static let iterations = 100_000

    /// Every decoder in the catalogue, including ones added later, gets 100 000 random and mutated payloads:
    /// each either decodes (and its fields can be built) or throws a positioned error inside the payload.
    @Test(arguments: DecoderCatalog.all.map { $0.identifier })
    func decoderNeverTrapsOnRandomOrMutatedPayloads(identifier: String) async throws {
        let decoder = try #require(DecoderCatalog.decoder(identifier: identifier))
        let seeds = fuzzSeeds[identifier] ?? []
        // Seconds of CPU in a debug build: off the cooperative pool, so tests that wait on time are not starved.
        let report = await CPUBoundWork.run { Self.fuzz(decoder, seeds: seeds) }
        #expect(report.decoded + report.rejected == Self.iterations)
        #expect(report.decoded > 0, "no payload decoded: the fuzzer never reached the decoder's success path")
        #expect(
            report.badErrors.isEmpty,
            "errors outside the payload or naming another decoder: \(report.badErrors.prefix(3))"
        )
    }

    @Test func everyHandWrittenSeedDecodes() throws {
        for (identifier, seeds) in fuzzSeeds {
            let decoder = try #require(DecoderCatalog.decoder(identifier: identifier), "\(identifier)")
            for seed in seeds {
                #expect(throws: Never.self, "\(identifier) \(Hex.string(seed))") { _ = try decoder.decode(seed) }
            }
        }
    }

    @Test func theGeneratorIsDeterministic() {
        var first = PayloadFuzzer(seed: 42, corpus: [DateTime.exampleBytes])
        var second = PayloadFuzzer(seed: 42, corpus: [DateTime.exampleBytes])
        let a = (0..<100).map { _ in first.next() }
        let b = (0..<100).map { _ in second.next() }
        #expect(a == b)
        #expect(Set(a).count > 50)
        #expect(a.allSatisfy { $0.count <= 48 })
    }

    struct Report: Sendable {
        var decoded = 0
        var rejected = 0
        var badErrors: [String] = []
    }

    private static func fuzz<T: GATTPayload>(_: T.Type, seeds: [[UInt8]]) -> Report {
        var fuzzer = PayloadFuzzer(seed: 0xC0FF_EE00 ^ UInt64(T.identifier.utf8.count), corpus: seeds)
        var report = Report()
        let context = T.displayName
        var payload: [UInt8] = []
        payload.reserveCapacity(64)
        for iteration in 0..<Self.iterations {
            fuzzer.next(into: &payload)
            do {
                let value = try T.decode(payload)
                report.decoded += 1
                // Building the fields must not trap either (checked on a sample to keep the debug run short).
                if iteration % 64 == 0 { _ = JSONValue.object(value.fields).serialized() }
                if report.decoded % 16 == 1 { fuzzer.keep(payload) }
            } catch {
                report.rejected += 1
                if error.offset < 0 || error.offset > payload.count || error.context != context {
                    report.badErrors.append("\(Hex.string(payload)): \(error)")
                }
            }
        }
        return report
    }
}
