public import Foundation

/// An alert the store raised for a rule of the plan: what tripped it, its state and its history.
public struct Alert: Sendable, Hashable, Identifiable {
    /// The alert's number (`carebridge alerts ack ID`).
    public var id: Int64
    /// The rule evaluation that raised it (last updated).
    public var trip: AlertTrip
    public var raisedAt: Date
    public var updatedAt: Date
    public var acknowledgedAt: Date?
    public var acknowledgedBy: String?
    /// Set when a late reading or a correction removed the facts that tripped it.
    public var withdrawnAt: Date?
    public var withdrawnReason: String?
    /// The patient whose plan the rule belongs to (nil in a store without patients).
    public var patientID: String? = nil
    /// The task's name in its patient's plan, where it differs from the key (`medication` for
    /// `medication@bed-2`); read with the alert.
    var name: String? = nil

    /// The task's name as a person reads it within its patient (``CareEvent/taskName``, ``StoredTask/taskName``);
    /// `trip.taskID` stays the store-wide key that topics, Home Assistant and `alerts --json`'s `task` use.
    public var taskName: String { name ?? trip.taskID }

    /// `open` (needs attention), `acknowledged`, or `withdrawn`.
    public var state: String {
        if withdrawnAt != nil { return "withdrawn" }
        return acknowledgedAt != nil ? "acknowledged" : "open"
    }

    public var isOpen: Bool { withdrawnAt == nil && acknowledgedAt == nil }
}
