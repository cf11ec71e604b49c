/// How ``CareStore/alerts(from:to:includeClosed:severity:order:)`` sorts.
public enum AlertOrder: Sendable, Hashable {
    /// Oldest occurrence first (a period's history: insights, the report).
    case occurrence
    /// Most severe first, then newest first (what needs attention now: `carebridge alerts`).
    case triage
}
