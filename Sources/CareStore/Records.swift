import Foundation
import GRDB

/// Dates are stored as seconds since 1970 (`DOUBLE`), which sorts, indexes and compares cheaply.
protocol StoreRecord: Codable, FetchableRecord, PersistableRecord {}

extension StoreRecord {
    static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy {
        .timeIntervalSince1970
    }

    static func databaseDateDecodingStrategy(for column: String) -> DatabaseDateDecodingStrategy {
        .timeIntervalSince1970
    }
}

/// One task version (table `task`).
struct TaskRecord: StoreRecord, Sendable {
    static let databaseTableName = "task"
    var uuid: String
    var id: String
    var versionNumber: Int
    var previousVersionUUID: String?
    var title: String
    var instructions: String?
    var kind: String
    var groupIdentifier: String?
    /// JSON array of strings.
    var tags: String
    var impactsAdherence: Bool
    /// JSON of the schedule, time-zone policy included.
    var schedule: String
    var linkageType: String?
    var linkageUnit: String?
    var linkageAggregation: String?
    var effectiveDate: Date
    var createdDate: Date
    var deletedDate: Date?
}

/// One stored quantity sample (table `sample`). Deleting sets ``deletedDate``; the row stays as a tombstone so
/// a re-import of the same reading stays deleted.
struct SampleRecord: StoreRecord, Sendable {
    static let databaseTableName = "sample"
    var id: String
    var idempotencyKey: String
    var type: String
    var value: Double
    var unit: String
    var start: Date
    var end: Date
    var transmittedValue: Double
    var transmittedUnit: String
    var sourceKind: String
    var characteristic: String?
    var decoder: String?
    var deviceKey: String?
    /// JSON of the `DeviceIdentity`.
    var device: String?
    /// The device's zone-less wall-clock stamp, `YYYY-MM-DDTHH:MM:SS`.
    var deviceTime: String?
    var receivedAt: Date
    var clockOffset: Double?
    /// Raw payload, upper-case hex ("" for manual entries).
    var payload: String
    var sampleIndex: Int
    /// JSON object of string metadata.
    var metadata: String?
    var recordedAt: Date
    var deletedDate: Date?
}

/// The outcome of one event (table `outcome`): task version + occurrence, with the event window denormalised.
struct OutcomeRecord: StoreRecord, Sendable {
    static let databaseTableName = "outcome"
    var id: Int64?
    var taskUUID: String
    var taskID: String
    var occurrence: Int
    var eventStart: Date
    var eventEnd: Date
    var createdDate: Date
    var updatedDate: Date

    mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }
}

/// One value of an outcome, in order (table `outcomeValue`).
struct OutcomeValueRecord: StoreRecord, Sendable {
    static let databaseTableName = "outcomeValue"
    var outcomeID: Int64
    var position: Int
    var value: Double
    var unit: String
    var measuredAt: Date
    var sampleID: String?
    var recordedAt: Date
}
