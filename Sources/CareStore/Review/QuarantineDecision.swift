public import Foundation

/// A care team's decision on a reading the bridge holds in quarantine, made at the hub and sent down as the hub's
/// change `sequence` (docs/hub.md, "What comes down"): release it into the record, or reject it (deleted, with
/// the reason in the review list).
public struct QuarantineDecision: Sendable, Hashable {
    public enum Verdict: String, Sendable, Hashable, CaseIterable {
        /// Accepted into the record, as `carebridge samples release` does.
        case release
        /// Not the patient's reading, or not a reading at all: deleted, as `carebridge samples delete` does.
        case reject
    }

    /// The hub's sequence of the change that carries the decision: applied once, whatever comes down again.
    public var sequence: Int64
    public var sample: UUID
    /// The patient the hub filed the reading under: a reading of another patient is not decided.
    public var patient: String
    public var verdict: Verdict
    public var reason: String
    /// The person who decided at the hub.
    public var author: String?

    public init(sequence: Int64, sample: UUID, patient: String, verdict: Verdict, reason: String, author: String?) {
        self.sequence = sequence
        self.sample = sample
        self.patient = patient
        self.verdict = verdict
        self.reason = reason
        self.author = author
    }
}
