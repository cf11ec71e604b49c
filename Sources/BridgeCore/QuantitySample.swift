import BridgeFoundation
public import Foundation
public import GATTDecoding
import Synchronization

/// One measured quantity, normalised to its type's canonical unit, with the value as the device sent it.
///
/// The ``id`` is derived from the ``idempotencyKey``, so the same reading decoded twice has the same id and
/// storing it twice changes nothing. Once derived it is carried with the sample (see ``id``).
public struct QuantitySample: Sendable, Hashable {
    public var type: QuantityType {
        didSet { if type != oldValue { refreshID() } }
    }
    /// Value in ``unit`` (always `type.canonicalUnit` for samples CareBridge makes).
    public var value: Double
    public var unit: HealthUnit
    public var start: Date {
        didSet { if source.kind == .manual, start != oldValue { refreshID() } }
    }
    public var end: Date
    /// The value and unit as transmitted, before normalisation.
    public var transmittedValue: Double {
        didSet { if source.kind == .manual { refreshID() } }
    }
    public var transmittedUnit: HealthUnit {
        didSet { if source.kind == .manual, transmittedUnit != oldValue { refreshID() } }
    }
    /// Where the sample came from.
    public var source: SampleSource {
        get { provenance.source }
        set {
            let old = provenance.source
            mutateProvenance { $0.source = newValue }
            if old.kind != newValue.kind || old.characteristic != newValue.characteristic
                || old.device?.key != newValue.device?.key
            {
                refreshID()
            }
        }
    }
    /// The device's own wall-clock stamp (no zone), when the payload carried one.
    public var deviceTime: DateTime? {
        didSet { if deviceTime != oldValue { refreshID() } }
    }
    /// When the bridge received the payload (or the reading was entered).
    public var receivedAt: Date {
        get { provenance.receivedAt }
        set {
            let changed = provenance.receivedAt != newValue
            mutateProvenance { $0.receivedAt = newValue }
            if changed { refreshID() }
        }
    }
    /// Seconds added to the device's clock when it was evidently wrong (set by the pipeline).
    public var clockOffset: Double?
    /// The payload bytes the sample was decoded from (empty for manual entries).
    public var rawPayload: [UInt8] {
        get { provenance.fields.payload.array }
        set {
            let bytes = PayloadBytes(newValue)
            let changed = provenance.fields.payload != bytes
            mutateProvenance { $0.payload = bytes }
            if changed { refreshID() }
        }
    }
    /// The id carried with the sample: the one it was stored under (read back from the store) or the one
    /// ``assignID()`` derived; nil until then, and again after a field of the key changes (never stale).
    private var carriedID: UUID?
    /// Source, payload, receive time and metadata: the same for every sample of one payload, so they are
    /// shared (one reference per sample, copied on write).
    private var provenance: SampleProvenance
    /// Position among samples of the same type from one payload (RR intervals), 0 otherwise.
    public var index: Int {
        didSet { if index != oldValue { refreshID() } }
    }
    /// Context a reader may want: user ID, measurement site, status bits, note.
    public var metadata: [String: String] {
        get { provenance.metadata }
        set { mutateProvenance { $0.metadata = newValue } }
    }
    /// Set for a result beyond what the device can measure (LO `<`, HI `>`): ``value`` is then the device's
    /// limit, or −∞/+∞ when the limit is not known (see ``ValueComparator``).
    public var comparator: ValueComparator?
    /// Why the sample is quarantined (implausible value, a status flag saying the value is invalid), nil for a
    /// sample that may complete events and be exported. A quarantined sample is kept, never used.
    public var quarantineReason: String?

    /// The sample is quarantined: kept, but it completes no event and is not exported as an observation.
    public var isQuarantined: Bool { quarantineReason != nil }

    /// The value for ordering (min/max, sorting): a LO sorts below every number, a HI above every number.
    public var orderingValue: Double {
        switch comparator {
        case .lessThan: -.infinity
        case .greaterThan: .infinity
        case nil: value
        }
    }

    public init(
        type: QuantityType,
        value: Double,
        unit: HealthUnit,
        start: Date,
        end: Date? = nil,
        transmittedValue: Double? = nil,
        transmittedUnit: HealthUnit? = nil,
        source: SampleSource,
        deviceTime: DateTime? = nil,
        receivedAt: Date? = nil,
        clockOffset: Double? = nil,
        rawPayload: [UInt8] = [],
        index: Int = 0,
        metadata: [String: String] = [:],
        comparator: ValueComparator? = nil,
        quarantineReason: String? = nil,
        id: UUID? = nil
    ) {
        self.init(
            type: type,
            value: value,
            unit: unit,
            start: start,
            end: end ?? start,
            transmittedValue: transmittedValue ?? value,
            transmittedUnit: transmittedUnit ?? unit,
            source: source,
            deviceTime: deviceTime,
            receivedAt: receivedAt ?? start,
            clockOffset: clockOffset,
            payload: PayloadBytes(rawPayload),
            index: index,
            metadata: metadata,
            comparator: comparator,
            quarantineReason: quarantineReason,
            id: id
        )
    }

    /// A sample as the store reads it back: every field given, the payload copied from `rawPayloadBytes` (a blob
    /// column read in place) into the provenance box, inline when it is short (see ``PayloadBytes``).
    ///
    /// The public initialiser takes the payload as an array; a store read would make one per sample only for
    /// the box to hold it, a second allocation per sample besides the box.
    package init(
        type: QuantityType,
        value: Double,
        unit: HealthUnit,
        start: Date,
        end: Date,
        transmittedValue: Double,
        transmittedUnit: HealthUnit,
        source: SampleSource,
        deviceTime: DateTime?,
        receivedAt: Date,
        clockOffset: Double?,
        rawPayloadBytes: UnsafeRawBufferPointer,
        index: Int,
        metadata: [String: String],
        comparator: ValueComparator?,
        quarantineReason: String?,
        id: UUID?
    ) {
        self.init(
            type: type,
            value: value,
            unit: unit,
            start: start,
            end: end,
            transmittedValue: transmittedValue,
            transmittedUnit: transmittedUnit,
            source: source,
            deviceTime: deviceTime,
            receivedAt: receivedAt,
            clockOffset: clockOffset,
            payload: PayloadBytes(copying: rawPayloadBytes),
            index: index,
            metadata: metadata,
            comparator: comparator,
            quarantineReason: quarantineReason,
            id: id
        )
    }

    private init(
        type: QuantityType,
        value: Double,
        unit: HealthUnit,
        start: Date,
        end: Date,
        transmittedValue: Double,
        transmittedUnit: HealthUnit,
        source: SampleSource,
        deviceTime: DateTime?,
        receivedAt: Date,
        clockOffset: Double?,
        payload: PayloadBytes,
        index: Int,
        metadata: [String: String],
        comparator: ValueComparator?,
        quarantineReason: String?,
        id: UUID?
    ) {
        self.type = type
        self.value = value
        self.unit = unit
        self.start = start
        self.end = end
        self.transmittedValue = transmittedValue
        self.transmittedUnit = transmittedUnit
        self.provenance = SampleProvenance.make(
            source: source,
            payload: payload,
            receivedAt: receivedAt,
            metadata: metadata
        )
        self.deviceTime = deviceTime
        self.clockOffset = clockOffset
        self.index = index
        self.comparator = comparator
        self.quarantineReason = quarantineReason
        self.carriedID = id
    }

    /// Makes a sample that shares `provenance` with its siblings from the same payload.
    init(
        type: QuantityType,
        value: Double,
        unit: HealthUnit,
        start: Date,
        transmittedValue: Double,
        transmittedUnit: HealthUnit,
        provenance: SampleProvenance,
        deviceTime: DateTime?,
        index: Int
    ) {
        self.type = type
        self.value = value
        self.unit = unit
        self.start = start
        self.end = start
        self.transmittedValue = transmittedValue
        self.transmittedUnit = transmittedUnit
        self.provenance = provenance
        self.deviceTime = deviceTime
        self.clockOffset = nil
        self.index = index
        self.carriedID = nil
    }

    /// A field of the key changed: the carried id no longer holds.
    private mutating func refreshID() {
        carriedID = nil
    }

    /// The stable id (layout: ``SampleID``), derived from the ``idempotencyKey``.
    ///
    /// Carried, not recomputed, once known: a sample read from the store holds the id it was stored under, and
    /// the pipeline derives each finished sample's id once (``assignID()``) before handing it on, so the store,
    /// publishers and exports read it for free. A sample nobody has fixed yet (a decoder's output, a manual
    /// entry before it is stored) derives it on each access: decoding alone never pays for SHA-256.
    public var id: UUID { carriedID ?? idFromKey() }

    /// Derives the id now and carries it from here on (until a field of the key changes).
    public mutating func assignID() {
        if carriedID == nil { carriedID = idFromKey() }
    }

    private mutating func mutateProvenance(_ change: (inout SampleProvenance.Fields) -> Void) {
        SampleProvenance.change(&provenance, change)
    }

    public static func == (lhs: QuantitySample, rhs: QuantitySample) -> Bool {
        lhs.type == rhs.type && lhs.value == rhs.value && lhs.unit == rhs.unit && lhs.start == rhs.start
            && lhs.end == rhs.end && lhs.transmittedValue == rhs.transmittedValue
            && lhs.transmittedUnit == rhs.transmittedUnit && lhs.deviceTime == rhs.deviceTime
            && lhs.clockOffset == rhs.clockOffset && lhs.index == rhs.index && lhs.comparator == rhs.comparator
            && lhs.quarantineReason == rhs.quarantineReason
            && (lhs.provenance === rhs.provenance || lhs.provenance.fields == rhs.provenance.fields)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(type)
        hasher.combine(value)
        hasher.combine(start)
        hasher.combine(index)
        // Not the payload: the samples of one payload would each hash all of it (equal values still hash equal).
        hasher.combine(provenance.receivedAt)
        hasher.combine(provenance.fields.payload.count)
    }

    /// The key that makes ingest idempotent.
    ///
    /// Device samples: source device + characteristic + device time (or receive time) + raw payload + type
    /// (+ index). Manual entries: type + value + unit + time.
    public var idempotencyKey: String {
        switch source.kind {
        case .manual:
            return "manual|\(typeKey)|\(transmittedValue)|\(transmittedUnit.rawValue)|\(Timestamp.utcKey(start))"
        case .device:
            return SampleProvenance.deviceKeyPrefix(provenance.fields, deviceTime: deviceTime) + typeKey
        }
    }

    private var typeKey: String { index == 0 ? type.rawValue : "\(type.rawValue)#\(index)" }

    /// The UUID derived from the idempotency key now: its time, then SHA-256 bits (layout: ``SampleID``).
    /// Computed anew on each call, whatever ``id`` carries (the store's id migration compares the two).
    ///
    /// A device sample's key is its payload's prefix (device, characteristic, time, the whole payload in hex)
    /// plus its type: the prefix is hashed once per payload and shared, so the n samples of one payload (RR
    /// intervals) cost O(n) rather than n hashes of the whole payload. Same digest, same ids as before.
    public func idFromKey() -> UUID {
        switch source.kind {
        case .manual: return SampleID.uuid(key: idempotencyKey, milliseconds: idMilliseconds)
        case .device:
            var hasher = provenance.keyPrefixHasher(deviceTime: deviceTime)
            hasher.update(typeKey)
            return SampleID.uuid(digest: hasher.finalize(), milliseconds: idMilliseconds)
        }
    }
}

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
