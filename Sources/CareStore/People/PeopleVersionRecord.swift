import Foundation
import GRDB

/// A versioned people row (patient, plan, contact): a change appends a version, a version is never overwritten.
protocol PeopleVersionRecord: StoreRecord {
    associatedtype Value: Equatable
    var uuid: String { get }
    var versionNumber: Int { get }
    var deletedDate: Date? { get }
    /// What the version holds; nil when its JSON cannot be read.
    var value: Value? { get }
    init(_ value: Value, versionNumber: Int, previous: String?, now: Date, deleted: Bool)
}

extension PeopleVersionRecord {
    /// Appends `value` as the next version of `id`, unless the newest version holds it already and is live.
    /// - Parameter check: runs on the newest version before a new one is appended; throws to refuse the change.
    static func saveVersion(
        _ db: Database,
        _ value: Value,
        id: String,
        now: Date,
        check: (Self) throws -> Void = { _ in }
    ) throws -> PeopleSaveResult {
        guard let newest = try filter(Column("id") == id).order(Column("versionNumber").desc).fetchOne(db) else {
            try Self(value, versionNumber: 1, previous: nil, now: now, deleted: false).insert(db)
            return .added
        }
        if newest.deletedDate == nil, newest.value == value { return .unchanged }
        try check(newest)
        try Self(value, versionNumber: newest.versionNumber + 1, previous: newest.uuid, now: now, deleted: false)
            .insert(db)
        return .updated
    }
}
