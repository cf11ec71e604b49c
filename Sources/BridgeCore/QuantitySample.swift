import BridgeFoundation
public import Foundation
public import GATTDecoding

/// One measured quantity, normalised to its type's canonical unit, with the value as the device sent it.
///
/// Settled: its ``id`` is derived once from the ``idempotencyKey`` when it is made (or is the id it was stored
/// under, when the store reads it back), and the fields of the key are read-only, so the id cannot go stale. The
/// same reading decoded twice has the same id, and storing it twice changes nothing. The other fields (the value
/// as screened, metadata, quarantine) may change. Decoders and the pipeline work on a ``SampleDraft``;
/// ``changed(_:)`` makes another sample, with its own id, from this one's fields.
public struct QuantitySample: Sendable, Hashable {
    /// The stable id (layout: ``SampleID``).
    public let id: UUID
    /// Changed only through the setters of the fields outside the key.
    @usableFromInline var fields: SampleDraft

    /// Settles `draft`: its id is `id` when given (the one a stored sample was stored under), else derived from
    /// its ``SampleDraft/idempotencyKey`` now, once.
    public init(_ draft: SampleDraft, id: UUID? = nil) {
        self.fields = draft
        self.id = id ?? draft.idFromKey()
    }

    /// A sample from every field; `end`, the transmitted value and unit and the receive time default to `start`,
    /// `value` and `unit`.
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
        var draft = SampleDraft(
            type: type,
            value: value,
            unit: unit,
            start: start,
            transmittedValue: transmittedValue ?? value,
            transmittedUnit: transmittedUnit ?? unit,
            provenance: SampleProvenance.make(
                source: source,
                payload: PayloadBytes(rawPayload),
                receivedAt: receivedAt ?? start,
                metadata: metadata
            ),
            deviceTime: deviceTime,
            index: index
        )
        draft.end = end ?? start
        draft.clockOffset = clockOffset
        draft.comparator = comparator
        draft.quarantineReason = quarantineReason
        self.init(draft, id: id)
    }

    /// This sample's fields, to make another sample from.
    public var draft: SampleDraft { fields }

    /// Another sample: this one's fields after `change`, with the id they derive.
    public func changed(_ change: (inout SampleDraft) -> Void) -> QuantitySample {
        var draft = fields
        change(&draft)
        return QuantitySample(draft)
    }

    @inlinable public var type: QuantityType { fields.type }
    /// Value in ``unit`` (always `type.canonicalUnit` for samples CareBridge makes).
    @inlinable public var value: Double {
        get { fields.value }
        set { fields.value = newValue }
    }
    @inlinable public var unit: HealthUnit {
        get { fields.unit }
        set { fields.unit = newValue }
    }
    @inlinable public var start: Date { fields.start }
    @inlinable public var end: Date {
        get { fields.end }
        set { fields.end = newValue }
    }
    /// The value as transmitted, before normalisation.
    @inlinable public var transmittedValue: Double { fields.transmittedValue }
    @inlinable public var transmittedUnit: HealthUnit { fields.transmittedUnit }
    /// Where the sample came from.
    public var source: SampleSource { fields.source }
    /// The device's own wall-clock stamp (no zone), when the payload carried one.
    @inlinable public var deviceTime: DateTime? { fields.deviceTime }
    /// When the bridge received the payload (or the reading was entered).
    public var receivedAt: Date { fields.receivedAt }
    /// Seconds added to the device's clock when it was evidently wrong (set by the pipeline).
    @inlinable public var clockOffset: Double? {
        get { fields.clockOffset }
        set { fields.clockOffset = newValue }
    }
    /// The payload bytes the sample was decoded from (empty for manual entries).
    public var rawPayload: [UInt8] { fields.rawPayload }
    /// Position among samples of the same type from one payload (RR intervals), 0 otherwise.
    @inlinable public var index: Int { fields.index }
    /// Context a reader may want: user ID, measurement site, status bits, note.
    public var metadata: [String: String] {
        get { fields.metadata }
        set { fields.metadata = newValue }
    }
    /// Set for a result beyond what the device can measure (LO `<`, HI `>`): ``value`` is then the device's
    /// limit, or −∞/+∞ when the limit is not known (see ``ValueComparator``).
    @inlinable public var comparator: ValueComparator? {
        get { fields.comparator }
        set { fields.comparator = newValue }
    }
    /// Why the sample is quarantined (implausible value, a status flag saying the value is invalid), nil for a
    /// sample that may complete events and be exported. A quarantined sample is kept, never used.
    @inlinable public var quarantineReason: String? {
        get { fields.quarantineReason }
        set { fields.quarantineReason = newValue }
    }
    /// The key that makes ingest idempotent (see ``SampleDraft/idempotencyKey``).
    public var idempotencyKey: String { fields.idempotencyKey }

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

    /// The id derived from the key now, whatever ``id`` holds (the store's id migration compares the two).
    public func idFromKey() -> UUID { fields.idFromKey() }

    public static func == (lhs: QuantitySample, rhs: QuantitySample) -> Bool { lhs.fields == rhs.fields }

    public func hash(into hasher: inout Hasher) { fields.hash(into: &hasher) }
}
