public import Foundation

/// An event's outcome waiting in the hub's outbox, as it is when read: recorded, undone (the undo record says who
/// and when, and keeps what was removed) or removed without an undo (its linked readings were deleted).
public struct OutboxOutcome: Sendable, Hashable {
    /// What happened to the event's outcome last.
    public enum State: String, Sendable, Hashable {
        case recorded, undone, removed
    }

    public var taskID: String
    /// The task version the outcome belongs to.
    public var taskUUID: String
    public var occurrence: Int
    public var eventStart: Date?
    /// The patient of the task's plan (nil in a store without patients).
    public var patientID: String?
    public var state: State
    /// The outcome as JSON, in the form the undo record keeps (``OutcomeUndo/outcome``): the recorded outcome,
    /// or the undone one; nil when removed.
    public var outcome: String?
    public var undoneAt: Date?
    /// Who undid it (a care app user; nil: the command line).
    public var undoneBy: String?

    /// `<task version uuid>/<occurrence>`: the outcome's id at the hub, the same for every state of the event.
    public var id: String { "\(taskUUID)/\(occurrence)" }
}
