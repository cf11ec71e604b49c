public import Foundation
import GRDB

/// One entry of the review list: a person released, deleted or filed a reading, when and why. Written in the
/// transaction that changes the sample; never edited.
public struct SampleReview: Sendable, Hashable {
    /// What was done to the reading.
    public enum Action: String, Sendable, Hashable, CaseIterable {
        /// Accepted out of quarantine.
        case release
        /// Deleted (a tombstone).
        case delete
        /// Filed from the unassigned inbox under a patient.
        case assign
    }

    public var sampleID: UUID
    public var action: Action
    /// Why (a release's and a deletion's reason; the patient a reading was filed under).
    public var reason: String?
    /// The care app user who did it; nil for the command line.
    public var author: String?
    public var reviewedAt: Date

    public init(sampleID: UUID, action: Action, reason: String?, author: String?, reviewedAt: Date) {
        self.sampleID = sampleID
        self.action = action
        self.reason = reason
        self.author = author
        self.reviewedAt = reviewedAt
    }

    /// Appends the entry in the caller's transaction.
    func insert(_ db: Database) throws {
        try db.execute(
            sql: "INSERT INTO sampleReview (sampleID, action, reason, author, reviewedAt) VALUES (?, ?, ?, ?, ?)",
            arguments: [sampleID.data, action.rawValue, reason, author, reviewedAt.timeIntervalSince1970]
        )
    }
}
