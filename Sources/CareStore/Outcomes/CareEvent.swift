public import BridgeCore
public import CarePlan
public import Foundation

/// One value of an outcome, in order.
public struct OutcomeValue: Sendable, Hashable {
    public var value: Double
    public var unit: HealthUnit
    /// When it was measured (the sample's start, or the completion time for interventions).
    public var measuredAt: Date
    /// The sample it came from; nil for interventions and for `mean`/`sum` aggregates.
    public var sampleID: UUID?
    /// When it entered the store (the sample's ingest time).
    public var recordedAt: Date
    /// The words of an answer (`yes`, a choice, free text, a scale label); nil for numbers only.
    public var text: String?
    /// `<`/`>` when the value comes from a LO/HI sample: ``value`` is then the device's limit (or ±∞).
    public var comparator: ValueComparator?

    public init(
        value: Double,
        unit: HealthUnit,
        measuredAt: Date,
        sampleID: UUID?,
        recordedAt: Date,
        text: String? = nil,
        comparator: ValueComparator? = nil
    ) {
        self.value = value
        self.unit = unit
        self.measuredAt = measuredAt
        self.sampleID = sampleID
        self.recordedAt = recordedAt
        self.text = text
        self.comparator = comparator
    }
}

/// The persisted outcome of one event.
public struct Outcome: Sendable, Hashable {
    public var values: [OutcomeValue]
    public var createdDate: Date
    public var updatedDate: Date
    /// A note on the outcome (CareKit's `OCKNote`).
    public var note: String?
    /// Why the event was not done; set when it was marked not done (then there are no values).
    public var notDoneReason: String?
    /// The care app user who last recorded it by hand; nil for devices and the command line.
    public var author: String?

    public init(
        values: [OutcomeValue],
        createdDate: Date,
        updatedDate: Date,
        note: String? = nil,
        notDoneReason: String? = nil,
        author: String? = nil
    ) {
        self.values = values
        self.createdDate = createdDate
        self.updatedDate = updatedDate
        self.note = note
        self.notDoneReason = notDoneReason
        self.author = author
    }

    /// Whether the event was marked not done.
    public var isNotDone: Bool { notDoneReason != nil }
}

/// What every event of one task version shares; one instance per version, so events stay small to copy.
final class EventTaskInfo: Sendable, Hashable {
    let title: String
    let kind: TaskKind
    let impactsAdherence: Bool
    let timeZone: TimeZone
    /// Per schedule element: its text and target values.
    let elements: [(text: String?, targetValues: [TargetValue])]
    let answer: AnswerFormat?
    /// The task's name in its patient's plan (nil: the same as the key).
    let name: String?

    init(
        title: String,
        kind: TaskKind,
        impactsAdherence: Bool,
        timeZone: TimeZone,
        elements: [(text: String?, targetValues: [TargetValue])],
        answer: AnswerFormat? = nil,
        name: String? = nil
    ) {
        self.name = name
        self.answer = answer
        self.title = title
        self.kind = kind
        self.impactsAdherence = impactsAdherence
        self.timeZone = timeZone
        self.elements = elements
    }

    static func == (lhs: EventTaskInfo, rhs: EventTaskInfo) -> Bool {
        lhs === rhs
            || (lhs.title == rhs.title && lhs.kind == rhs.kind && lhs.impactsAdherence == rhs.impactsAdherence
                && lhs.timeZone == rhs.timeZone && lhs.answer == rhs.answer && lhs.elements.count == rhs.elements.count
                && zip(lhs.elements, rhs.elements).allSatisfy {
                    $0.text == $1.text && $0.targetValues == $1.targetValues
                })
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(title)
        hasher.combine(kind)
    }
}

/// An event computed from a task version's schedule, with its outcome if there is one.
public struct CareEvent: Sendable, Hashable, Identifiable {
    public var key: EventKey
    public var start: Date
    public var end: Date
    public var isAllDay: Bool
    /// Which element of the schedule produced the event.
    public var elementIndex: Int
    public var outcome: Outcome?
    let info: EventTaskInfo

    public init(
        key: EventKey,
        title: String,
        kind: TaskKind,
        impactsAdherence: Bool,
        start: Date,
        end: Date,
        isAllDay: Bool,
        text: String?,
        targetValues: [TargetValue],
        timeZone: TimeZone,
        outcome: Outcome?
    ) {
        self.init(
            key: key,
            start: start,
            end: end,
            isAllDay: isAllDay,
            elementIndex: 0,
            outcome: outcome,
            info: EventTaskInfo(
                title: title,
                kind: kind,
                impactsAdherence: impactsAdherence,
                timeZone: timeZone,
                elements: [(text, targetValues)]
            )
        )
    }

    init(
        key: EventKey,
        start: Date,
        end: Date,
        isAllDay: Bool,
        elementIndex: Int,
        outcome: Outcome?,
        info: EventTaskInfo
    ) {
        self.key = key
        self.start = start
        self.end = end
        self.isAllDay = isAllDay
        self.elementIndex = elementIndex
        self.outcome = outcome
        self.info = info
    }

    public var title: String { info.title }
    public var kind: TaskKind { info.kind }
    public var impactsAdherence: Bool { info.impactsAdherence }
    /// What a person answers for this task (nil: done/not done, or a linked measurement).
    public var answer: AnswerFormat? { info.answer }
    /// The zone the schedule is evaluated in (its calendar days are this zone's).
    public var timeZone: TimeZone { info.timeZone }
    /// The schedule element's text, if any.
    public var text: String? { info.elements.indices.contains(elementIndex) ? info.elements[elementIndex].text : nil }
    public var targetValues: [TargetValue] {
        info.elements.indices.contains(elementIndex) ? info.elements[elementIndex].targetValues : []
    }

    /// The stable event id, `<taskVersionUUID>#<occurrence>`.
    public var id: String { key.description }
    public var taskID: String { key.taskID }
    /// The task's id in its patient's plan: the same as ``taskID`` (the store-wide key) unless another patient
    /// used it first (`bp` for the key `bp@bed-2`).
    public var taskName: String { info.name ?? key.taskID }
    public var occurrence: Int { key.occurrence }

    /// Progress toward completion, 0…1 (CareKit's strategies). Without target values: 1 when the outcome has a
    /// value. With target values: Σ values / Σ targets, clamped (a goal of 0 is met by any outcome).
    public var progress: Double {
        guard let values = outcome?.values, !values.isEmpty else { return 0 }
        guard !targetValues.isEmpty else { return 1 }
        let unit = values[0].unit
        let goal = targetValues.reduce(0.0) { sum, target in
            sum + (target.unit.flatMap { $0.convert(target.value, to: unit) } ?? target.value)
        }
        guard goal > 0 else { return 1 }
        let total = values.reduce(0.0) { $0 + $1.value }
        return Swift.min(Swift.max(total / goal, 0), 1)
    }

    /// Whether the event counts as completed (progress reached 1).
    public var isCompleted: Bool { progress >= 1 }
}

/// Which events to compute.
public struct EventQuery: Sendable, Hashable {
    /// Events ending at or after this instant…
    public var from: Date
    /// …and starting before this one (CareKit's overlap semantics).
    public var to: Date
    /// Only these tasks (all when empty).
    public var taskIDs: Set<String>
    /// Only these kinds (all when empty).
    public var kinds: Set<TaskKind>

    public init(from: Date, to: Date, taskIDs: Set<String> = [], kinds: Set<TaskKind> = []) {
        self.from = from
        self.to = to
        self.taskIDs = taskIDs
        self.kinds = kinds
    }
}

/// Completion for one calendar day.
public struct DailyAdherence: Sendable, Hashable {
    /// The day, `YYYY-MM-DD`, in the zone of the schedules' time-zone policy.
    public var day: String
    public var completed: Int
    public var total: Int
    /// Mean progress of the day's events (CareKit's aggregation); nil when the day has no events.
    public var progress: Double?

    public init(day: String, completed: Int, total: Int, progress: Double?) {
        self.day = day
        self.completed = completed
        self.total = total
        self.progress = progress
    }
}
