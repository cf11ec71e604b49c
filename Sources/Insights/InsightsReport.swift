public import CareStore
public import Foundation

/// What `carebridge insights` shows and the care report is built from: a period, each task's completion and
/// values beside the previous period of the same length, and the messages (alerts and tips).
public struct InsightsReport: Sendable, Hashable {
    /// The patient (one implicit patient until the store knows patients).
    public var patient: String?
    public var from: Date
    /// Exclusive end.
    public var to: Date
    public var previousFrom: Date
    /// The calendar days of the period, `YYYY-MM-DD`, in the bridge's zone.
    public var days: [String]
    public var tasks: [TaskInsight]
    public var messages: [InsightMessage]
    /// The alerts whose facts lie in the period (every state).
    public var alerts: [Alert]
    public var zone: TimeZone
}
