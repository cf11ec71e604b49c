public import BridgeCore
public import Foundation

/// A sample as the store holds it: the quantity sample plus when it was stored and whether it was deleted.
public struct StoredSample: Sendable, Hashable {
    public var sample: QuantitySample
    /// When this store first recorded the sample (ingest time; measurement time is `sample.start`).
    public var recordedAt: Date
    /// Set when the sample was deleted; the row stays so a re-import does not bring it back.
    public var deletedDate: Date?
    /// Why a person released this sample from quarantine (`carebridge samples release`), when they did.
    public var releaseReason: String?
    /// The patient the sample belongs to (nil: in the unassigned inbox, or a store without patients).
    public var patientID: String?
    /// Why the sample waits in the unassigned inbox (`carebridge samples --unassigned`), nil when it does not.
    public var inboxReason: String?
    /// How its patient was decided: `only patient`, `slot 2 of AA:BB…`, `weight band …`, `assigned`, `explicit`.
    public var routedBy: String?

    public init(
        sample: QuantitySample,
        recordedAt: Date,
        deletedDate: Date? = nil,
        releaseReason: String? = nil,
        patientID: String? = nil,
        inboxReason: String? = nil,
        routedBy: String? = nil
    ) {
        self.sample = sample
        self.recordedAt = recordedAt
        self.deletedDate = deletedDate
        self.releaseReason = releaseReason
        self.patientID = patientID
        self.inboxReason = inboxReason
        self.routedBy = routedBy
    }

    /// Whether the sample waits in the unassigned inbox.
    public var isUnassigned: Bool { inboxReason != nil }

    public var id: UUID { sample.id }
}

/// Which samples to read.
public struct SampleQuery: Sendable, Hashable {
    /// Only these types (all when empty).
    public var types: Set<QuantityType>
    /// Measurement time (`start`) at or after this instant.
    public var from: Date?
    /// Measurement time before this instant.
    public var to: Date?
    /// Only samples that fed no event (outside every window of a linked task, or before its effective date).
    public var unmatchedOnly: Bool
    /// Also return deleted samples (tombstones).
    public var includesDeleted: Bool
    /// Which samples by quarantine: usable ones only (the default: what exports and events see), quarantined
    /// ones only, or both.
    public var quarantine: QuarantineFilter
    public var limit: Int?
    /// Only the samples of this patient (all when nil; a scoped store sets it).
    public var patientID: String?
    /// Only the samples in the unassigned inbox (they are left out otherwise when a patient is asked for).
    public var unassignedOnly = false

    public init(
        types: Set<QuantityType> = [],
        from: Date? = nil,
        to: Date? = nil,
        unmatchedOnly: Bool = false,
        includesDeleted: Bool = false,
        quarantine: QuarantineFilter = .excluded,
        limit: Int? = nil,
        patientID: String? = nil,
        unassignedOnly: Bool = false
    ) {
        self.patientID = patientID
        self.unassignedOnly = unassignedOnly
        self.quarantine = quarantine
        self.types = types
        self.from = from
        self.to = to
        self.unmatchedOnly = unmatchedOnly
        self.includesDeleted = includesDeleted
        self.limit = limit
    }
}

/// Which samples a query returns by quarantine.
public enum QuarantineFilter: String, Sendable, Hashable, CaseIterable {
    /// Usable samples only.
    case excluded
    /// Quarantined samples only.
    case only
    /// Both.
    case included
}

/// What a call to `recordSamples(_:)` did.
public struct IngestReport: Sendable, Hashable {
    /// Samples that were new to the store.
    public var inserted: Int
    /// Samples already stored (same idempotency key), left unchanged.
    public var duplicates: Int
    /// Events whose outcome was created or re-derived (``updatedEvents``' count).
    public var eventsUpdated: Int
    /// The events whose outcome was created or re-derived, in the order they were written (fetch them with
    /// ``CareStore/events(keys:)``).
    public var updatedEvents: [EventKey] = []
    /// New samples that fed no event.
    public var unmatched: Int
    /// New samples stored in quarantine (they feed no event; not counted in ``unmatched``).
    public var quarantined = 0
    /// New samples put in the unassigned inbox (no owner, or an ambiguous shared device; not in ``unmatched``).
    public var unassigned = 0
    /// Samples skipped because their period was already vacuumed into an aggregate from the same device and
    /// source kind (a re-import of old data; counted in ``duplicates`` too).
    public var alreadyAggregated = 0

    public init(inserted: Int = 0, duplicates: Int = 0, eventsUpdated: Int = 0, unmatched: Int = 0) {
        self.inserted = inserted
        self.duplicates = duplicates
        self.eventsUpdated = eventsUpdated
        self.unmatched = unmatched
    }
}
