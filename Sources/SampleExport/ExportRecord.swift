public import BridgeCore

/// A care-plan event a sample counted towards: the task's id and which occurrence of it.
public struct EventMatch: Sendable, Hashable {
    /// The task's user-facing id, e.g. `morning-weight`.
    public var task: String
    /// The occurrence index within the task's schedule.
    public var occurrence: Int

    public init(task: String, occurrence: Int) {
        self.task = task
        self.occurrence = occurrence
    }
}

/// One sample to export, with the care-plan events it was matched to (none when it matched nothing).
public struct ExportRecord: Sendable, Hashable {
    public var sample: QuantitySample
    public var matches: [EventMatch]
    /// The sample was deleted (a correction): FHIR writes it as `entered-in-error` so a server that has the
    /// Observation marks it; CSV and JSON Lines (snapshots of what is valid) leave it out.
    public var retracted: Bool
    /// The patient the sample belongs to in the store (nil in a store without patients).
    public var patient: String?
    /// Set when the record is an aggregate of samples a retention vacuum removed (`sample.value` is their
    /// mean); the writers say so (CSV `aggregate_*` columns, FHIR `method` and `note`, JSON Lines `aggregate`).
    public var aggregate: ExportAggregate?

    public init(
        sample: QuantitySample,
        matches: [EventMatch] = [],
        retracted: Bool = false,
        patient: String? = nil,
        aggregate: ExportAggregate? = nil
    ) {
        self.sample = sample
        self.matches = matches
        self.retracted = retracted
        self.patient = patient
        self.aggregate = aggregate
    }
}
