import BridgeFoundation
import Crypto
public import Foundation
public import GATTDecoding

/// The layout of sample ids: time-ordered, and still a pure function of the idempotency key.
///
/// An id is a version 8 UUID (RFC 9562 custom layout) whose first 48 bits are the milliseconds since
/// 1970-01-01T00:00Z of the time that is part of the idempotency key (the device's wall-clock stamp read as if it
/// were UTC, else the receive time; the measurement time for manual entries), and whose remaining 74 free bits
/// are the first bits of the SHA-256 of the key.
///
/// Ids of samples that arrive in time order therefore sort in arrival order, so the store's unique id index
/// grows at its end instead of at random places (a random 16-byte key made every transaction rewrite index
/// pages all over the file). The time prefix comes from the key itself, never from the clock-corrected start,
/// which can differ between sessions: the same reading always gets the same id.
public enum SampleID {
    /// The largest time prefix (48 bits of milliseconds, past the year 10,000).
    static let maximumMilliseconds: Int64 = (1 << 48) - 1

    /// The id of a sample whose idempotency key is `key` and whose key time is `milliseconds` since 1970 UTC
    /// (clamped to 0 … 2⁴⁸ − 1).
    public static func uuid(key: String, milliseconds: Int64) -> UUID {
        var key = key
        return uuid(digest: key.withUTF8 { SHA256.digest(UnsafeRawBufferPointer($0)) }, milliseconds: milliseconds)
    }

    /// The id for a key whose SHA-256 is `digest`.
    static func uuid(digest: SHA256.Digest, milliseconds: Int64) -> UUID {
        let time = UInt64(min(max(milliseconds, 0), maximumMilliseconds))
        func t(_ shift: UInt64) -> UInt8 { UInt8(truncatingIfNeeded: time >> shift) }
        return digest.withUnsafeBytes { h in
            UUID(
                uuid: (
                    t(40), t(32), t(24), t(16), t(8), t(0),
                    h[0] & 0x0F | 0x80, h[1],
                    h[2] & 0x3F | 0x80, h[3], h[4], h[5],
                    h[6], h[7], h[8], h[9]
                )
            )
        }
    }

    /// Milliseconds since 1970 UTC of `date`, rounded as ``Timestamp/utcKey(_:)`` writes it into keys.
    public static func milliseconds(_ date: Date) -> Int64 {
        let value = (date.timeIntervalSince1970 * 1000).rounded()
        guard value.isFinite else { return 0 }
        return Int64(max(min(value, Double(maximumMilliseconds)), 0))
    }

    /// Milliseconds since 1970 of a device's wall-clock stamp read as if it were UTC (it has no zone; only the
    /// order matters). Unknown fields (zero) count as they are.
    public static func milliseconds(_ time: DateTime) -> Int64 {
        let days = CivilDate.dayNumber(year: time.year, month: time.month, day: time.day)
        let seconds = days * 86_400 + Int64(time.hours * 3600 + time.minutes * 60 + time.seconds)
        return seconds.multipliedReportingOverflow(by: 1000).overflow ? 0 : seconds * 1000
    }
}

extension SampleDraft {
    /// Milliseconds since 1970 of the time in the ``idempotencyKey``: the id's time prefix.
    public var idMilliseconds: Int64 {
        switch source.kind {
        case .manual: return SampleID.milliseconds(start)
        case .device: return deviceTime.map(SampleID.milliseconds) ?? SampleID.milliseconds(receivedAt)
        }
    }
}

extension QuantitySample {
    /// Milliseconds since 1970 of the time in the ``idempotencyKey``: the id's time prefix.
    public var idMilliseconds: Int64 { fields.idMilliseconds }

    /// The id this sample had before ids were time-ordered (SHA-256 of the key, name-based layout); only the
    /// store's migration to time-ordered ids needs it.
    public var legacyID: UUID { SHA256.uuid(for: idempotencyKey) }

    /// This reading typed in by hand, under an id whose key also names `patient`: where ``id`` is already another
    /// patient's reading of the same type, value, unit and time (two beds on a ward both weighed 72.5 kg at 07:30),
    /// this patient's is a reading of its own, not a duplicate. Same time prefix; a device reading keeps its id
    /// (one device's reading is one patient's).
    public func typedIn(forPatient patient: String) -> QuantitySample {
        guard source.kind == .manual else { return self }
        return QuantitySample(
            fields,
            id: SampleID.uuid(key: idempotencyKey + "|patient|" + patient, milliseconds: idMilliseconds)
        )
    }
}
