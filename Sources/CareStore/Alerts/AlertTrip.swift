public import BridgeCore
public import CarePlan
public import Foundation

/// A rule that tripped on one subject, as rule evaluation finds it; the store turns trips into ``Alert``s.
public struct AlertTrip: Sendable, Hashable {
    public var taskID: String
    public var ruleID: String
    /// The task version that carried the rule (the rule's version).
    public var taskVersion: UUID
    public var taskVersionNumber: Int
    /// What the alert is about: `event:<event id>`, `sample:<sample id>`, `day:YYYY-MM-DD`.
    public var subject: String
    public var severity: AlertSeverity
    public var message: String
    /// The value that tripped it (a reading, a change, a count of completed events), in `unit`.
    public var value: Double?
    public var unit: HealthUnit?
    /// When the facts happened (the reading's time, the adherence deadline).
    public var occurredAt: Date
    /// The calendar day of `occurredAt` in the task's zone, `YYYY-MM-DD`.
    public var day: String
    /// The events behind it (stable event ids).
    public var events: [String]
    /// The samples behind it.
    public var samples: [UUID]

    public init(
        taskID: String,
        ruleID: String,
        taskVersion: UUID,
        taskVersionNumber: Int,
        subject: String,
        severity: AlertSeverity,
        message: String,
        value: Double?,
        unit: HealthUnit?,
        occurredAt: Date,
        day: String,
        events: [String],
        samples: [UUID]
    ) {
        self.taskID = taskID
        self.ruleID = ruleID
        self.taskVersion = taskVersion
        self.taskVersionNumber = taskVersionNumber
        self.subject = subject
        self.severity = severity
        self.message = message
        self.value = value
        self.unit = unit
        self.occurredAt = occurredAt
        self.day = day
        self.events = events
        self.samples = samples
    }
}
