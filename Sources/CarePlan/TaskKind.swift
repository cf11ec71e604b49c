/// What completes a task's events.
public enum TaskKind: String, Sendable, Hashable, Codable, CaseIterable {
    /// Shown on a care card and completed by the patient (`carebridge complete`).
    case intervention
    /// A measurement or survey; with a ``SampleLinkage`` it is completed by samples.
    case assessment
}
