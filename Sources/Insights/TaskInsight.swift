public import CarePlan
public import Foundation

/// One task over a period: completion, values, per day, and the same for the period before.
public struct TaskInsight: Sendable, Hashable {
    /// Completion of the events of a period.
    public struct Completion: Sendable, Hashable {
        public var completed: Int
        public var total: Int
        /// Events marked not done (with a reason).
        public var notDone: Int
        /// completed / total; nil without events.
        public var rate: Double? { total == 0 ? nil : Double(completed) / Double(total) }
    }

    /// Summary of the numeric values of a period.
    public struct Values: Sendable, Hashable {
        public var count: Int
        public var mean: Double
        public var min: Double
        public var max: Double
        public var latest: Double
        public var latestText: String?
        public var latestAt: Date
    }

    /// One calendar day of the period (in the task's zone).
    public struct Day: Sendable, Hashable {
        public var day: String
        public var completed: Int
        public var total: Int
        /// The mean of the day's values (numeric tasks; of every reading for a linked assessment).
        public var value: Double?
        /// The lowest and highest reading of the day (linked assessments; nil for other tasks).
        public var low: Double? = nil
        public var high: Double? = nil
    }

    /// The task's store-wide key (`medication@bed-2` for a second patient's `medication`).
    public var id: String
    /// Its name in the patient's plan, what a person reads (``StoredTask/taskName``).
    public var name: String
    public var title: String
    public var kind: TaskKind
    /// The unit of the values (`kg`, `1` for scales and counts, `s` for durations); nil for tasks without values.
    public var unit: String?
    /// The answer format, for answered assessments.
    public var answer: AnswerFormat?
    public var completion: Completion
    public var previousCompletion: Completion
    public var values: Values?
    public var previousValues: Values?
    public var days: [Day]
    /// Open alerts of the task in the period.
    public var openAlerts: Int
}
