public import Foundation
import GRDB

extension CareStore {
    /// The review list of these readings, oldest first, by reading.
    public func sampleReviews(of ids: [UUID]) async throws(CareStoreError) -> [UUID: [SampleReview]] {
        guard !ids.isEmpty else { return [:] }
        let blobs = Set(ids).map(\.data)
        return try await read { db in
            var reviews: [UUID: [SampleReview]] = [:]
            // SQLite's default limit on bound variables is 32,766; a page of readings is far below it.
            for chunk in stride(from: 0, to: blobs.count, by: 500).map({ blobs[$0..<min($0 + 500, blobs.count)] }) {
                let rows = try Row.fetchAll(
                    db,
                    sql: """
                        SELECT sampleID, action, reason, author, reviewedAt FROM sampleReview
                        WHERE sampleID IN (\(chunk.map { _ in "?" }.joined(separator: ", "))) ORDER BY reviewedAt, id
                        """,
                    arguments: StatementArguments(Array(chunk))
                )
                for row in rows {
                    let blob: Data = row["sampleID"]
                    guard let id = UUID(bytes: blob), let action = SampleReview.Action(rawValue: row["action"]) else {
                        throw CareStoreError(.corruptRow, "a review names no sample or an unknown action")
                    }
                    reviews[id, default: []].append(
                        SampleReview(
                            sampleID: id,
                            action: action,
                            reason: row["reason"],
                            author: row["author"],
                            reviewedAt: Date(timeIntervalSince1970: row["reviewedAt"])
                        )
                    )
                }
            }
            return reviews
        }
    }
}
