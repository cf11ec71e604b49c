import BridgeFoundation
import Foundation
import GATTDecoding
import Synchronization

/// Provenance shared by every sample decoded from one payload: source, payload bytes, receive time and
/// metadata.
///
/// Copy-on-write: the fields change in place only while one value holds the box (checked with
/// `isKnownUniquelyReferenced` under exclusive access), so a shared box is never written and may cross threads.
final class SampleProvenance: @unchecked Sendable {
    struct Fields: Hashable {
        var source: SampleSource
        var payload: PayloadBytes
        var receivedAt: Date
        var metadata = [String: String]()
    }

    private(set) var fields: Fields {
        didSet { keyPrefix.withLock { $0 = nil } }
    }
    /// The hashed idempotency-key prefix of the last device time asked for (see ``QuantitySample/id``).
    private let keyPrefix = Mutex<(deviceTime: DateTime?, hasher: SHA256.Hasher)?>(nil)

    /// `device|ADDRESS|CHARACTERISTIC|TIME|PAYLOAD-HEX|`: every device sample's key up to its type.
    static func deviceKeyPrefix(_ fields: Fields, deviceTime: DateTime?) -> String {
        withDeviceKeyPrefix(fields, deviceTime: deviceTime) { String(decoding: $0, as: UTF8.self) }
    }

    /// Calls `body` with the UTF-8 bytes of ``deviceKeyPrefix(_:deviceTime:)``, written into one temporary buffer.
    ///
    /// The hasher reads these bytes once per payload: building them as a `String` (interpolation, the payload's
    /// hex as a string of its own) cost more than hashing them in the replay of a heart-rate day. One writer
    /// serves both, so the key text and the hashed bytes cannot drift apart.
    static func withDeviceKeyPrefix<Result>(
        _ fields: Fields,
        deviceTime: DateTime?,
        _ body: (UnsafeRawBufferPointer) -> Result
    ) -> Result {
        var device = fields.source.device?.key ?? "unknown"
        var characteristic = fields.source.characteristic?.description ?? "-"
        var time = deviceTime.map { "device:\($0)" } ?? "received:\(Timestamp.utcKey(fields.receivedAt))"
        let count =
            7 + device.utf8.count + 1 + characteristic.utf8.count + 1 + time.utf8.count + 1
            + fields.payload.count * 2 + 1
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: count) { buffer in
            var position = 0
            func append(_ text: inout String) {
                text.withUTF8 { utf8 in
                    for byte in utf8 {
                        buffer[position] = byte
                        position += 1
                    }
                }
            }
            func separator() {
                buffer[position] = UInt8(ascii: "|")
                position += 1
            }
            var label = "device"
            append(&label)
            separator()
            append(&device)
            separator()
            append(&characteristic)
            separator()
            append(&time)
            separator()
            let hex = fields.payload.withUnsafeBytes { payload in
                Hex.write(payload, into: UnsafeMutableBufferPointer(rebasing: buffer[position...]))
            }
            position += hex
            separator()
            return body(UnsafeRawBufferPointer(UnsafeMutableBufferPointer(rebasing: buffer[..<position])))
        }
    }

    /// A hasher fed with ``deviceKeyPrefix(_:deviceTime:)``, computed once per payload and device time.
    func keyPrefixHasher(deviceTime: DateTime?) -> SHA256.Hasher {
        keyPrefix.withLock { cached in
            if let cached, cached.deviceTime == deviceTime { return cached.hasher }
            var hasher = SHA256.Hasher()
            Self.withDeviceKeyPrefix(fields, deviceTime: deviceTime) { hasher.update($0) }
            cached = (deviceTime, hasher)
            return hasher
        }
    }

    var source: SampleSource { fields.source }
    var payload: [UInt8] { fields.payload.array }
    var receivedAt: Date { fields.receivedAt }
    var metadata: [String: String] { fields.metadata }

    init(_ fields: Fields) {
        self.fields = fields
    }

    /// A new box holding these fields: what a sample's or a context's initialiser calls.
    ///
    /// Out of line, with the source and metadata consumed, on purpose. Inlined into an initialiser, the
    /// `keyPrefix` mutex (a non-copyable member) leads the compiler to copy the source's optional decoder and
    /// device box through the runtime's generic `Optional` value witnesses and then destroy the originals, four
    /// calls per sample that showed in `perf` of a store read (86,398 samples); out of line they are moved.
    @inline(never)
    static func make(
        source: consuming SampleSource,
        payload: PayloadBytes,
        receivedAt: Date,
        metadata: consuming [String: String]
    ) -> SampleProvenance {
        SampleProvenance(Fields(source: source, payload: payload, receivedAt: receivedAt, metadata: metadata))
    }

    /// Applies `change` to `box`'s fields: in place when `box` is the only reference to it, else to a copy
    /// that `box` then refers to (what every holder of a provenance does to change it).
    static func change(_ box: inout SampleProvenance, _ change: (inout Fields) -> Void) {
        if isKnownUniquelyReferenced(&box) {
            change(&box.fields)
        } else {
            var copy = box.fields
            change(&copy)
            box = SampleProvenance(copy)
        }
    }
}
