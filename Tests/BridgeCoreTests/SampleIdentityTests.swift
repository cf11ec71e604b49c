import BridgeCore
import BridgeFoundation
import Foundation
import GATTDecoding
import Testing

@Suite struct SampleIdentityTests {
    @Test func sha256MatchesTheFIPSVectors() {
        #expect(
            Hex.string(SHA256.hash(Array("abc".utf8)))
                == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        )
        #expect(
            Hex.string(SHA256.hash([UInt8]())) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        )
        let long = Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)
        #expect(Hex.string(SHA256.hash(long)) == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }

    @Test func sameReadingDecodedTwiceHasTheSameIdAndDifferentReadingsDiffer() throws {
        let zone = TimeZone(identifier: "Europe/Berlin")!
        let payload: [UInt8] = [0x02, 0xA4, 0x38, 0xE8, 0x07, 0x03, 0x0F, 0x07, 0x1E, 0x00]
        func samples(_ bytes: [UInt8], received: Date) throws -> [QuantitySample] {
            let context = SampleContext(
                receivedAt: received,
                timeZone: zone,
                source: .device(WeightMeasurement.self),
                payload: bytes
            )
            return try WeightMeasurement.decode(bytes).samples(in: context).map { QuantitySample($0) }
        }
        let first = try samples(payload, received: Date(timeIntervalSince1970: 1_000))
        let again = try samples(payload, received: Date(timeIntervalSince1970: 2_000))
        #expect(first.map(\.id) == again.map(\.id))  // device time, not receive time, keys it
        var other = payload
        other[1] = 0xA5
        #expect(try samples(other, received: Date(timeIntervalSince1970: 1_000)).map(\.id) != first.map(\.id))
    }

    @Test func deviceTimeIsReadInTheBridgeZone() throws {
        let zone = TimeZone(identifier: "Europe/Berlin")!
        let payload: [UInt8] = [0x02, 0xA4, 0x38, 0xE8, 0x07, 0x03, 0x0F, 0x07, 0x1E, 0x00]
        let context = SampleContext(
            receivedAt: Date(),
            timeZone: zone,
            source: .device(WeightMeasurement.self),
            payload: payload
        )
        let sample = try #require(try WeightMeasurement.decode(payload).samples(in: context).first)
        #expect(Timestamp.format(sample.start, in: zone) == "2024-03-15T07:30:00+01:00")
        #expect(Timestamp.format(sample.start, in: TimeZone(identifier: "UTC")!) == "2024-03-15T06:30:00+00:00")
        #expect(sample.value == 72.5)
        #expect(sample.unit == .kilogram)
    }

    @Test func imperialWeightIsNormalisedAndTransmittedValueKept() throws {
        let payload: [UInt8] = [0x01, 0x80, 0x3E]
        let context = SampleContext(
            receivedAt: Date(timeIntervalSince1970: 0),
            timeZone: .gmt,
            source: .device(WeightMeasurement.self),
            payload: payload
        )
        let sample = try #require(try WeightMeasurement.decode(payload).samples(in: context).first)
        #expect(sample.value == 160 * 0.453_592_37)
        #expect(sample.transmittedValue == 160)
        #expect(sample.transmittedUnit == .pound)
        #expect(sample.start == Date(timeIntervalSince1970: 0))
    }
}
