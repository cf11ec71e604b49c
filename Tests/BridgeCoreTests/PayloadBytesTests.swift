import BridgeCore
import BridgeFoundation
import Foundation
import GATTDecoding
import Testing

/// A sample's payload is held inside its provenance box when it is short (``PayloadBytes``) and in an array
/// when it is long; either way `rawPayload` gives back exactly the bytes, and equality, hashing and the id see
/// the bytes, not how they are held.
@Suite struct PayloadBytesTests {
    private static let start = Date(timeIntervalSince1970: 1_795_158_000)
    private static let strap = SampleSource(
        kind: .device,
        characteristic: BluetoothUUID("2A37"),
        decoder: "heart-rate-measurement",
        device: DeviceIdentity(address: "02:00:00:00:00:05")
    )
    /// Around the inline limit (7 bytes) and well past it.
    private static let lengths = [0, 1, 4, 6, 7, 8, 9, 24, 25, 300]

    private static func bytes(_ count: Int, seed: UInt8 = 0) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ Int(seed) &+ 1) }
    }

    private static func sample(_ payload: [UInt8]) -> QuantitySample {
        QuantitySample(
            type: .heartRate,
            value: 72,
            unit: .perMinute,
            start: start,
            source: strap,
            rawPayload: payload
        )
    }

    /// The store's initialiser, the payload copied from raw bytes (as a blob column is read).
    private static func storedSample(_ payload: [UInt8]) -> QuantitySample {
        payload.withUnsafeBytes { bytes in
            var draft = QuantitySample(
                type: .heartRate,
                value: 72,
                unit: .perMinute,
                start: start,
                end: start,
                transmittedValue: 72,
                transmittedUnit: .perMinute,
                source: strap,
                deviceTime: nil,
                receivedAt: start,
                clockOffset: nil,
                index: 0,
                metadata: [:],
                comparator: nil,
                quarantineReason: nil
            ).draft
            draft.replacePayload(copying: bytes)
            return QuantitySample(draft)
        }
    }

    @Test(arguments: lengths) func aPayloadOfAnyLengthReadsBackAsGiven(count: Int) {
        let payload = Self.bytes(count)
        #expect(Self.sample(payload).rawPayload == payload)
        #expect(Self.storedSample(payload).rawPayload == payload)
    }

    @Test(arguments: lengths) func fromAnArrayOrFromRawBytesTheSampleIsTheSame(count: Int) {
        let payload = Self.bytes(count)
        let fromArray = Self.sample(payload)
        let fromBytes = Self.storedSample(payload)
        #expect(fromArray == fromBytes)
        #expect(fromArray.hashValue == fromBytes.hashValue)
        #expect(fromArray.id == fromBytes.id)
        #expect(fromArray.idempotencyKey == fromBytes.idempotencyKey)
    }

    @Test(arguments: lengths.filter { $0 > 0 }) func everyByteCountsForEqualityAndTheID(count: Int) {
        var changed = Self.bytes(count)
        changed[count - 1] ^= 0x80
        #expect(Self.sample(changed) != Self.sample(Self.bytes(count)))
        #expect(Self.sample(changed).id != Self.sample(Self.bytes(count)).id)
        // A trailing zero byte is a byte: [1, 2] and [1, 2, 0] are different payloads.
        let padded = Self.bytes(count) + [0]
        #expect(Self.sample(padded) != Self.sample(Self.bytes(count)))
        #expect(Self.sample(padded).id != Self.sample(Self.bytes(count)).id)
        #expect(Self.sample(padded).rawPayload == padded)
    }

    @Test func theIdempotencyKeyShowsThePayloadInHexAsBefore() {
        let payload: [UInt8] = [0x10, 0x48, 0x00, 0x04, 0x10, 0x04]
        #expect(Self.sample(payload).idempotencyKey.contains("|104800041004|"))
        let long = Self.bytes(30)
        #expect(Self.sample(long).idempotencyKey.contains("|\(Hex.string(long))|"))
    }

    @Test func changingThePayloadAcrossTheInlineLimitKeepsTheBytesAndGivesTheirID() {
        let inline = Self.sample(Self.bytes(7))
        let boxed = inline.changed { $0.rawPayload = Self.bytes(8) }
        #expect(boxed.rawPayload == Self.bytes(8))
        #expect(boxed.id != inline.id)
        #expect(boxed.id == Self.sample(Self.bytes(8)).id)
        let back = boxed.changed { $0.rawPayload = Self.bytes(7) }
        #expect(back.rawPayload == Self.bytes(7))
        #expect(back.id == inline.id)
    }

    @Test func aContextsPayloadGoesToItsSamplesWhateverItsLength() throws {
        for count in Self.lengths {
            var context = SampleContext(
                receivedAt: Self.start,
                timeZone: .gmt,
                source: Self.strap,
                payload: Self.bytes(count)
            )
            #expect(context.payload == Self.bytes(count))
            let first = try #require(context.sample(.heartRate, value: 72, unit: .perMinute))
            context.payload = Self.bytes(count, seed: 9)
            let second = try #require(context.sample(.heartRate, value: 72, unit: .perMinute))
            #expect(first.rawPayload == Self.bytes(count))
            #expect(second.rawPayload == Self.bytes(count, seed: 9))
            #expect(context.payload == Self.bytes(count, seed: 9))
        }
    }
}
