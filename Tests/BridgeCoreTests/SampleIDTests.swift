import BridgeCore
import BridgeFoundation
import Foundation
import GATTDecoding
import Testing

/// Sample ids: a pure function of the idempotency key, ordered by the key's time.
@Suite struct SampleIDTests {
    static let device = DeviceIdentity(address: "C8:47:8C:00:00:01", name: "strap")
    static let source = SampleSource(
        kind: .device,
        characteristic: BluetoothUUID(0x2A37),
        decoder: "test",
        device: device
    )

    static func heartRate(received: Date, payload: [UInt8] = [0x00, 0x48], start: Date? = nil) -> QuantitySample {
        QuantitySample(
            type: .heartRate,
            value: 72,
            unit: .perMinute,
            start: start ?? received,
            source: source,
            receivedAt: received,
            rawPayload: payload
        )
    }

    static func bytes(_ id: UUID) -> [UInt8] { withUnsafeBytes(of: id.uuid) { Array($0) } }

    static func prefix(_ id: UUID) -> Int64 { bytes(id).prefix(6).reduce(Int64(0)) { $0 << 8 | Int64($1) } }

    @Test func idStartsWithTheReceiveTimeInMillisecondsAndIsAVersion8UUID() {
        let received = Date(timeIntervalSince1970: 1_795_158_000.123)
        let id = Self.heartRate(received: received).id
        #expect(Self.prefix(id) == 1_795_158_000_123)
        #expect(Self.bytes(id)[6] >> 4 == 8)
        #expect(Self.bytes(id)[8] >> 6 == 0b10)
    }

    @Test func aDeviceSamplesIdHashesItsKeyText() {
        // The key's prefix is hashed from bytes written in place, never from this text: both must agree.
        let received = Date(timeIntervalSince1970: 1_795_158_000.5)
        var sample = Self.heartRate(received: received, payload: [0x16, 0x48, 0x10, 0xAB])
        #expect(
            sample.idempotencyKey
                == "device|C8:47:8C:00:00:01|2A37|received:2026-11-20T07:00:00.500Z|164810ab|heartRate"
        )
        #expect(sample.id == SampleID.uuid(key: sample.idempotencyKey, milliseconds: 1_795_158_000_500))
        sample = sample.changed { $0.index = 2 }
        #expect(sample.idempotencyKey.hasSuffix("|164810ab|heartRate#2"))
        #expect(sample.id == SampleID.uuid(key: sample.idempotencyKey, milliseconds: 1_795_158_000_500))
        sample = sample.changed {
            $0.source.device = nil
            $0.source.characteristic = nil
            $0.rawPayload = []
        }
        #expect(sample.idempotencyKey == "device|unknown|-|received:2026-11-20T07:00:00.500Z||heartRate#2")
        #expect(sample.id == SampleID.uuid(key: sample.idempotencyKey, milliseconds: 1_795_158_000_500))
    }

    @Test func sameKeyGivesTheSameIdWhateverTheCorrectedStart() {
        let received = Date(timeIntervalSince1970: 1_795_158_000)
        let first = Self.heartRate(received: received)
        var corrected = Self.heartRate(received: received, start: received.addingTimeInterval(-3_600))
        corrected.clockOffset = -3_600
        #expect(first.idempotencyKey == corrected.idempotencyKey)
        #expect(first.id == corrected.id)
        #expect(Self.heartRate(received: received, payload: [0x00, 0x49]).id != first.id)
    }

    @Test func idsOfLaterReadingsSortAfterEarlierOnes() {
        let start = Date(timeIntervalSince1970: 1_795_158_000)
        let ids = (0..<200).map { Self.heartRate(received: start.addingTimeInterval(Double($0) * 0.5)).id }
        let sorted = ids.sorted { Self.bytes($0).lexicographicallyPrecedes(Self.bytes($1)) }
        #expect(sorted == ids)
        #expect(Set(ids).count == ids.count)
    }

    @Test func deviceTimeKeysTheIdNotTheReceiveTime() {
        let deviceTime = DateTime(year: 2026, month: 11, day: 20, hours: 7, minutes: 30, seconds: 5)
        let sample = Self.heartRate(received: Date(timeIntervalSince1970: 1_795_158_000)).changed {
            $0.deviceTime = deviceTime
        }
        let days = CivilDate.dayNumber(year: 2026, month: 11, day: 20)
        #expect(sample.idMilliseconds == (days * 86_400 + 7 * 3_600 + 30 * 60 + 5) * 1_000)
        let later = sample.changed { $0.receivedAt = $0.receivedAt.addingTimeInterval(86_400) }
        #expect(later.id == sample.id)
    }

    @Test func manualEntriesAreKeyedByTheirMeasurementTime() {
        let at = Date(timeIntervalSince1970: 1_795_158_000)
        let sample = QuantitySample(
            type: .bodyMass,
            value: 72.4,
            unit: .kilogram,
            start: at,
            source: .manual,
            receivedAt: at.addingTimeInterval(600)
        )
        #expect(Self.prefix(sample.id) == 1_795_158_000_000)
        #expect(sample.legacyID == SHA256.uuid(for: sample.idempotencyKey))
        #expect(sample.legacyID != sample.id)
    }

    @Test func timesOutsideTheFortyEightBitRangeAreClamped() {
        #expect(Self.prefix(SampleID.uuid(key: "k", milliseconds: -5)) == 0)
        #expect(Self.prefix(SampleID.uuid(key: "k", milliseconds: .max)) == (1 << 48) - 1)
        #expect(SampleID.milliseconds(Date(timeIntervalSince1970: -10)) == 0)
    }
}
