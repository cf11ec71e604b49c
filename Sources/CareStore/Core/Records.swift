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
    /// JSON of the answer format (``CarePlan/AnswerFormat``), NULL for none.
    var answer: String?
    /// JSON array of alert rules, NULL for none.
    var alerts: String?
    var effectiveDate: Date
    var createdDate: Date
    var deletedDate: Date?
    /// The plan the task belongs to (since `"v8-people"`; NULL in a store without patients).
    var carePlanID: String?
    /// The id the plan file gave the task, unique per patient (since `"v22-task-names"`); ``id`` is the store-wide
    /// key, the same as the name unless another patient used the name first.
    var name: String?
}

/// One sample of the layout before `"v10-compact-samples"` (table `sample` joined with `device`, ``init(row:)``),
/// as the migrations that convert that layout read it. The compact layout has its own decoder,
/// ``SampleRowReader``.
struct SampleRecord: FetchableRecord, Sendable {
    /// The sample's UUID (stored as 16 bytes).
    var id: UUID
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
    /// JSON of the `DeviceIdentity` (from the `device` table).
    var device: String?
    /// The device's zone-less wall-clock stamp, `YYYY-MM-DDTHH:MM:SS`.
    var deviceTime: String?
    var receivedAt: Date
    var clockOffset: Double?
    /// Raw payload bytes (empty for manual entries).
    var payload: [UInt8]
    var sampleIndex: Int
    /// JSON object of string metadata.
    var metadata: String?
    var recordedAt: Date
    var deletedDate: Date?
    /// `<` / `>` for a LO/HI sample (since `"v6-sample-safety"`).
    var comparator: String?
    var quarantineReason: String?
    var releaseReason: String?
    /// The patient the sample belongs to; NULL in the inbox or in a store without patients (since `"v8-people"`).
    var patientID: String?
    /// Why the sample is in the unassigned inbox (NULL when it is not).
    var inboxReason: String?
    /// How its patient was decided (`slot 2 of …`, `weight band …`, `assigned`, …).
    var routedBy: String?

    /// The columns ``init(row:)`` reads from the layout before `"v10-compact-samples"`, in order; use with
    /// `FROM sample LEFT JOIN device ON device.id = sample.deviceID`.
    static let selection =
        baseSelection + ", sample.comparator, sample.quarantineReason, sample.releaseReason"
        + ", sample.patientID, sample.inboxReason, sample.routedBy"

    /// The columns every schema version since `"v1"` has (what migrations before `"v6-sample-safety"` read).
    static let baseSelection = """
        sample.id, sample.type, sample.value, sample.unit, sample.start, sample."end", sample.transmittedValue,
        sample.transmittedUnit, sample.sourceKind, sample.characteristic, sample.decoder, device.identity,
        sample.deviceTime, sample.receivedAt, sample.clockOffset, sample.payload, sample.sampleIndex, sample.metadata,
        sample.recordedAt, sample.deletedDate
        """
    static let from = "FROM sample LEFT JOIN device ON device.id = sample.deviceID"

    init(row: Row) throws {
        let idBytes: Data = row[0]
        id = UUID(bytes: idBytes) ?? UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
        type = row[1]
        value = row[2]
        unit = row[3]
        start = Date(timeIntervalSince1970: row[4])
        end = Date(timeIntervalSince1970: row[5])
        transmittedValue = row[6]
        transmittedUnit = row[7]
        sourceKind = row[8]
        characteristic = row[9]
        decoder = row[10]
        device = row[11]
        deviceTime = row[12]
        receivedAt = Date(timeIntervalSince1970: row[13])
        clockOffset = row[14]
        let payloadData: Data? = row[15]
        payload = payloadData.map { [UInt8]($0) } ?? []
        sampleIndex = row[16]
        metadata = row[17]
        recordedAt = Date(timeIntervalSince1970: row[18])
        deletedDate = (row[19] as Double?).map(Date.init(timeIntervalSince1970:))
        if row.count > 20 {
            comparator = row[20]
            quarantineReason = row[21]
            releaseReason = row[22]
        }
        if row.count > 23 {
            patientID = row[23]
            inboxReason = row[24]
            routedBy = row[25]
        }
    }
}

extension UUID {
    /// The UUID whose 16 bytes these are (nil unless exactly 16).
    init?(bytes: Data) {
        guard bytes.count == 16 else { return nil }
        let b = [UInt8](bytes)
        self.init(
            uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15])
        )
    }

    /// The 16 bytes, as stored in `sample.id`.
    var data: Data {
        withUnsafeBytes(of: uuid) { Data($0) }
    }
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
    var note: String?
    var notDoneReason: String?

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
    /// The sample's id as `sample.id` holds it (16 bytes), nil for a value no sample gave.
    var sampleID: Data?
    var recordedAt: Date
    /// The words of an answer.
    var text: String?
}
