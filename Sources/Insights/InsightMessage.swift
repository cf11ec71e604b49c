public import CarePlan

/// A message item (CareKit's insights): an alert raised by a rule, or a tip computed from the data.
public struct InsightMessage: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable {
        case alert, tip
    }

    public var kind: Kind
    public var severity: AlertSeverity
    /// The task's store-wide key.
    public var taskID: String
    /// Its name in the patient's plan (``StoredTask/taskName``).
    public var taskName: String
    public var text: String
    /// The day it is about, `YYYY-MM-DD`.
    public var day: String?
    /// The alert's id and state, for alerts.
    public var alertID: Int64?
    public var state: String?
}
