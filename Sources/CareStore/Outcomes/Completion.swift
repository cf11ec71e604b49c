/// What a person records when completing an event by hand: an answer, a note, or that it was not done.
public struct Completion: Sendable, Hashable {
    /// The answer as typed (`7`, `yes`, `Nausea`, `7h30m`), checked against the task's answer format.
    public var answer: String?
    /// A note on the outcome; replaces an earlier note.
    public var note: String?
    /// Marks the event not done, with the reason (CareKit's "didn't do it"); the outcome then has no values.
    public var notDoneReason: String?
    /// Allows a completion time in the future.
    public var allowFuture: Bool
    /// Who recorded it through the care app (a ``CareUser`` id); nil from the command line.
    public var author: String?

    public init(
        answer: String? = nil,
        note: String? = nil,
        notDoneReason: String? = nil,
        allowFuture: Bool = false,
        author: String? = nil
    ) {
        self.answer = answer
        self.note = note
        self.notDoneReason = notDoneReason
        self.allowFuture = allowFuture
        self.author = author
    }
}
