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
    public var releaseReason: String? {
        get { notes.releaseReason }
        set { notes = Notes(notes, releaseReason: newValue) }
    }
    /// The patient the sample belongs to (nil: in the unassigned inbox, or a store without patients).
    public var patientID: String? {
        get { notes.patientID }
        set { notes = Notes(notes, patientID: newValue) }
    }
    /// Why the sample waits in the unassigned inbox (`carebridge samples --unassigned`), nil when it does not.
    public var inboxReason: String? {
        get { notes.inboxReason }
        set { notes = Notes(notes, inboxReason: newValue) }
    }
    /// How its patient was decided: `only patient`, `slot 2 of AA:BB…`, `weight band …`, `assigned`, `explicit`.
    public var routedBy: String? {
        get { notes.routedBy }
        set { notes = Notes(notes, routedBy: newValue) }
    }
    /// The four texts above, in one shared box (see ``Notes``).
    private(set) var notes: Notes

    public init(
        sample: QuantitySample,
        recordedAt: Date,
        deletedDate: Date? = nil,
        releaseReason: String? = nil,
        patientID: String? = nil,
        inboxReason: String? = nil,
        routedBy: String? = nil
    ) {
        self.init(
            sample: sample,
            recordedAt: recordedAt,
            deletedDate: deletedDate,
            notes: Notes.make(
                releaseReason: releaseReason,
                patientID: patientID,
                inboxReason: inboxReason,
                routedBy: routedBy
            )
        )
    }

    /// A sample with notes a reader shares between the samples of one route (``SampleRowReader``).
    init(sample: QuantitySample, recordedAt: Date, deletedDate: Date?, notes: Notes) {
        self.sample = sample
        self.recordedAt = recordedAt
        self.deletedDate = deletedDate
        self.notes = notes
    }

    /// Whether the sample waits in the unassigned inbox.
    public var isUnassigned: Bool { inboxReason != nil }

    public var id: UUID { sample.id }

    /// The release reason and route of a stored sample, immutable, in one box: a sample holds one reference
    /// instead of four optional strings.
    ///
    /// Measured on a day of heart rate read back (86,398 samples): copying and destroying an optional string
    /// inside a struct this size goes through the runtime's generic `Optional` value witnesses, four of them a
    /// sample, each time it is built, copied into the result and freed; one reference is a retain and a release,
    /// and the samples of one route share the box (most share ``empty``). It also makes each sample 56 bytes
    /// smaller. Equal and hashed by value.
    final class Notes: Sendable, Hashable {
        let releaseReason: String?
        let patientID: String?
        let inboxReason: String?
        let routedBy: String?

        /// No release reason, no route: what most samples hold.
        static let empty = Notes()

        /// ``empty`` when every text is nil, else a new box.
        static func make(
            releaseReason: String? = nil,
            patientID: String? = nil,
            inboxReason: String? = nil,
            routedBy: String? = nil
        ) -> Notes {
            if releaseReason == nil, patientID == nil, inboxReason == nil, routedBy == nil { return empty }
            return Notes(
                releaseReason: releaseReason,
                patientID: patientID,
                inboxReason: inboxReason,
                routedBy: routedBy
            )
        }

        private init(
            releaseReason: String? = nil,
            patientID: String? = nil,
            inboxReason: String? = nil,
            routedBy: String? = nil
        ) {
            self.releaseReason = releaseReason
            self.patientID = patientID
            self.inboxReason = inboxReason
            self.routedBy = routedBy
        }

        /// `notes` with the texts given here changed.
        convenience init(
            _ notes: Notes,
            releaseReason: String?? = nil,
            patientID: String?? = nil,
            inboxReason: String?? = nil,
            routedBy: String?? = nil
        ) {
            self.init(
                releaseReason: releaseReason ?? notes.releaseReason,
                patientID: patientID ?? notes.patientID,
                inboxReason: inboxReason ?? notes.inboxReason,
                routedBy: routedBy ?? notes.routedBy
            )
        }

        static func == (lhs: Notes, rhs: Notes) -> Bool {
            lhs === rhs
                || (lhs.releaseReason == rhs.releaseReason && lhs.patientID == rhs.patientID
                    && lhs.inboxReason == rhs.inboxReason && lhs.routedBy == rhs.routedBy)
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(releaseReason)
            hasher.combine(patientID)
            hasher.combine(inboxReason)
            hasher.combine(routedBy)
        }
    }
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
    /// Readings typed in by hand stored under another id than their own, by their own id: the same reading (type,
    /// value, unit, time) was already another patient's, so this patient's has the id that names the patient
    /// (``QuantitySample/typedIn(forPatient:)``).
    public var storedUnder: [UUID: UUID] = [:]

    /// `sample` with the id it is stored under (its own, unless it is in ``storedUnder``).
    public func stored(_ sample: QuantitySample) -> QuantitySample {
        guard let id = storedUnder[sample.id] else { return sample }
        return QuantitySample(sample.draft, id: id)
    }

    public init(inserted: Int = 0, duplicates: Int = 0, eventsUpdated: Int = 0, unmatched: Int = 0) {
        self.inserted = inserted
        self.duplicates = duplicates
        self.eventsUpdated = eventsUpdated
        self.unmatched = unmatched
    }
}
