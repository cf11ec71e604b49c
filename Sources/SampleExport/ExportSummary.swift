public import BridgeCore

/// What a writer did, returned by `finish()`.
public struct ExportSummary: Sendable, Equatable {
    /// Records accepted through `write(_:)`.
    public var records = 0
    /// Records that went into the output (a blood-pressure pair counts as two).
    public var exported = 0
    /// Top-level items written: Observations and Devices for FHIR, rows for CSV, lines for JSONL.
    public var resources = 0
    /// Records left out because the format has no representation for their type, by type.
    public var skipped: [QuantityType: Int] = [:]
    /// Care-plan outcomes written (FHIR: interventions as Tasks, answers as Observations).
    public var outcomes = 0

    public init() {}

    /// All skipped records.
    public var skippedCount: Int { skipped.values.reduce(0, +) }
}
