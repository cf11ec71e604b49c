import BridgeFoundation
public import Foundation
public import GATTDecoding

/// A sample while it is being made: what a decoder produces (``SampleContext/sample(_:value:unit:deviceTime:index:start:)``)
/// and the pipeline settles (the device identity, a corrected clock, the safety stage). Every field may change and
/// there is no id yet: ``QuantitySample/init(_:id:)`` derives it once from the settled fields. A draft of fields given one
/// by one is a sample's ``QuantitySample/draft`` (`QuantitySample(type: …, id: id).draft` makes no id).
public struct SampleDraft: Sendable, Hashable {
    public var type: QuantityType
    /// Value in ``unit`` (always `type.canonicalUnit` for samples CareBridge makes).
    public var value: Double
    public var unit: HealthUnit
    public var start: Date
    public var end: Date
    /// The value and unit as transmitted, before normalisation.
    public var transmittedValue: Double
    public var transmittedUnit: HealthUnit
    /// Where the sample came from.
    public var source: SampleSource {
        get { provenance.source }
        set { mutateProvenance { $0.source = newValue } }
    }
    /// The device's own wall-clock stamp (no zone), when the payload carried one.
    public var deviceTime: DateTime?
    /// When the bridge received the payload (or the reading was entered).
    public var receivedAt: Date {
        get { provenance.receivedAt }
        set { mutateProvenance { $0.receivedAt = newValue } }
    }
    /// Seconds added to the device's clock when it was evidently wrong (set by the pipeline).
    public var clockOffset: Double?
    /// The payload bytes the sample was decoded from (empty for manual entries).
    public var rawPayload: [UInt8] {
        get { provenance.payload }
        set { mutateProvenance { $0.payload = PayloadBytes(newValue) } }
    }
    /// Source, payload, receive time and metadata: the same for every sample of one payload, so they are
    /// shared (one reference per sample, copied on write).
    private(set) var provenance: SampleProvenance
    /// Position among samples of the same type from one payload (RR intervals), 0 otherwise.
    public var index: Int
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

    /// The sample is quarantined (see ``QuantitySample/isQuarantined``).
    public var isQuarantined: Bool { quarantineReason != nil }

    /// Makes a sample that shares `provenance` with its siblings from the same payload (or, for a store read,
    /// holds the box the row was read into).
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
    }

    /// Copies `bytes` (a blob column read in place) into the payload, inline when short (see ``PayloadBytes``):
    /// how the store reads a sample back without an array per sample besides the provenance box.
    package mutating func replacePayload(copying bytes: UnsafeRawBufferPointer) {
        mutateProvenance { $0.payload = PayloadBytes(copying: bytes) }
    }

    private mutating func mutateProvenance(_ change: (inout SampleProvenance.Fields) -> Void) {
        SampleProvenance.change(&provenance, change)
    }

    public static func == (lhs: SampleDraft, rhs: SampleDraft) -> Bool {
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

    /// The UUID derived from the idempotency key: its time, then SHA-256 bits (layout: ``SampleID``).
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
