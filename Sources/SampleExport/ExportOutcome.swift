public import BridgeCore
public import Foundation

/// A care-plan event with an outcome that did not come from a sample: an intervention done (or marked not done)
/// or an assessment answered by hand. FHIR exports write an intervention as a `Task` and each answer as a
/// survey `Observation` (see ``FHIRBundleWriter/write(outcome:)``).
public struct ExportOutcome: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable {
        case intervention
        case assessment
    }

    /// One answer as the plan's answer format gives it.
    public enum Answer: Sendable, Hashable {
        case integer(Int)
        case quantity(Double, HealthUnit)
        case boolean(Bool)
        case text(String)
    }

    /// An answer and when it was given.
    public struct Given: Sendable, Hashable {
        public var answer: Answer
        public var at: Date

        public init(_ answer: Answer, at: Date) {
            self.answer = answer
            self.at = at
        }
    }

    /// The task's store-wide key: what the outcome's identifier and the task code carry (stable).
    public var taskID: String
    /// The task's name in the patient's plan (`medication` for the key `medication@bed-2`): the code's display.
    public var taskName: String
    public var title: String
    public var kind: Kind
    public var occurrence: Int
    /// The event's window.
    public var start: Date
    public var end: Date
    /// When an intervention was done.
    public var doneAt: Date?
    /// An assessment's answers.
    public var answers: [Given]
    public var notDoneReason: String?
    public var note: String?

    /// - Parameter taskName: the task's name in the patient's plan; nil: the same as `taskID`.
    public init(
        taskID: String,
        taskName: String? = nil,
        title: String,
        kind: Kind,
        occurrence: Int,
        start: Date,
        end: Date,
        doneAt: Date? = nil,
        answers: [Given] = [],
        notDoneReason: String? = nil,
        note: String? = nil
    ) {
        self.taskID = taskID
        self.taskName = taskName ?? taskID
        self.title = title
        self.kind = kind
        self.occurrence = occurrence
        self.start = start
        self.end = end
        self.doneAt = doneAt
        self.answers = answers
        self.notDoneReason = notDoneReason
        self.note = note
    }
}
