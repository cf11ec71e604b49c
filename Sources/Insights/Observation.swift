public import BridgeCore
public import Foundation

/// One value a rule looks at: a reading (a linked sample's value in the task's unit) or a person's answer.
public struct Observation: Sendable, Hashable {
    public var taskID: String
    /// The event it completed (stable event id; nil for a reading that fed no event: outside every window, or
    /// past what the aggregation kept) and the task version in force for it.
    public var eventID: String?
    public var taskVersion: UUID
    public var value: Double
    public var unit: HealthUnit
    /// When it was measured or answered.
    public var at: Date
    /// The sample it came from (nil for answers and `mean`/`sum` values).
    public var sampleID: UUID?
    /// The words of an answer.
    public var text: String?
    /// The reading was outside the device's measuring range (LO/HI, a comparator): it always alerts.
    public var isOutOfRange: Bool

    public init(
        taskID: String,
        eventID: String?,
        taskVersion: UUID,
        value: Double,
        unit: HealthUnit,
        at: Date,
        sampleID: UUID?,
        text: String?,
        isOutOfRange: Bool = false
    ) {
        self.taskID = taskID
        self.eventID = eventID
        self.taskVersion = taskVersion
        self.value = value
        self.unit = unit
        self.at = at
        self.sampleID = sampleID
        self.text = text
        self.isOutOfRange = isOutOfRange
    }

    /// What an alert about this one value is about: the sample, else the event.
    public var subject: String {
        sampleID.map { "sample:\($0.uuidString.lowercased())" } ?? "event:\(eventID ?? "")"
    }

    /// The events it is evidence of: the one it completed, if any.
    var events: [String] { eventID.map { [$0] } ?? [] }
}
