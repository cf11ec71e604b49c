import BridgeCore
import BridgeFoundation
import Foundation
import GRDB

/// The compact sample layout (since `"v10-compact-samples"`) and the few helpers every piece of CareStore that
/// reads or changes samples goes through: nothing else writes SQL against these tables.
///
/// One row per sample in `sampleRow`, a `WITHOUT ROWID` table keyed by `(type, start, idTail)`:
///
/// - `type`: a small integer code (`quantityType`: code ⇄ name, assigned on first use).
/// - `start`: the measurement time in milliseconds since 1970 (every time in the layout is whole milliseconds).
/// - `idTail`: the last 10 bytes of the sample id. The id's first 6 bytes are the milliseconds of its key time
///   (``BridgeCore/SampleID``), which for most samples (everything stamped with its receive time, manual entries)
///   is `start`; a row whose key time differs keeps it in `detail` (`k`). So the id is stored once and the
///   table's own key is the `(type, start)` order every query reads in: no second index over all samples.
/// - `series`: what the samples of one device characteristic share (`sampleSeries`: unit, transmitted unit,
///   source kind, characteristic, decoder, device, position in the payload, LO/HI comparator).
/// - `origin`: the notification (`sampleOrigin`: the raw payload once, its interned metadata); the time it was
///   recorded comes from `sampleBatch`, which notes the first origin of each run of equal recording times.
/// - `transmittedValue`: the value as the device sent it; the value itself is that converted to the series'
///   unit, exactly (checked when stored), else it is kept in `detail` (`v`).
/// - `state`: NULL for a usable live sample; bits ``deletedBit``, ``quarantinedBit``, ``inboxBit``.
/// - `route`: `sampleRoute` (patient, inbox reason, how it was routed); 0 is none of them.
/// - `detail`: NULL, or a JSON object of what few rows have (``SampleDetail``).
///
/// Idempotency: a reading stored again has the same id. Its row is found by `(type, key time, idTail)` or, for a
/// row whose key time is not its start (kept in `detail`), through the small partial index over rows with a
/// detail; an insert checks both before it writes.
enum SampleTable {
    static let deletedBit: Int64 = 1
    static let quarantinedBit: Int64 = 2
    static let inboxBit: Int64 = 4

    /// The tables and indexes of the layout (`IF NOT EXISTS`: a resumed conversion runs it again).
    static let createSQL = """
        CREATE TABLE IF NOT EXISTS quantityType (
            code INTEGER PRIMARY KEY,
            name TEXT NOT NULL UNIQUE
        );
        CREATE TABLE IF NOT EXISTS sampleSeries (
            id INTEGER PRIMARY KEY,
            unit TEXT NOT NULL,
            transmittedUnit TEXT NOT NULL,
            sourceKind TEXT NOT NULL,
            characteristic TEXT,
            decoder TEXT,
            deviceID INTEGER REFERENCES device(id),
            sampleIndex INTEGER NOT NULL,
            comparator TEXT
        );
        CREATE TABLE IF NOT EXISTS sampleMetadata (
            id INTEGER PRIMARY KEY,
            json TEXT NOT NULL UNIQUE
        );
        CREATE TABLE IF NOT EXISTS sampleOrigin (
            id INTEGER PRIMARY KEY,
            payload BLOB NOT NULL,
            metadata INTEGER
        );
        CREATE TABLE IF NOT EXISTS sampleBatch (
            firstOrigin INTEGER PRIMARY KEY,
            recordedAt INTEGER NOT NULL
        );
        CREATE TABLE IF NOT EXISTS sampleRoute (
            id INTEGER PRIMARY KEY,
            patientID TEXT,
            inboxReason TEXT,
            routedBy TEXT
        );
        INSERT OR IGNORE INTO sampleRoute (id) VALUES (0);
        CREATE TABLE IF NOT EXISTS sampleRow (
            type INTEGER NOT NULL,
            start INTEGER NOT NULL,
            idTail BLOB NOT NULL,
            series INTEGER NOT NULL,
            origin INTEGER NOT NULL,
            transmittedValue REAL NOT NULL,
            state INTEGER,
            route INTEGER NOT NULL,
            detail TEXT,
            PRIMARY KEY (type, start, idTail)
        ) WITHOUT ROWID;
        CREATE INDEX IF NOT EXISTS sampleRow_detailed ON sampleRow(idTail) WHERE detail IS NOT NULL;
        CREATE INDEX IF NOT EXISTS sampleRow_flagged ON sampleRow(state, start) WHERE state IS NOT NULL;
        """

    /// The row and its origin, as ``SampleRowReader`` reads them (`r`, `o`).
    static let from = "sampleRow AS r JOIN sampleOrigin AS o ON o.id = r.origin"

    // MARK: - Times and ids

    /// Whole milliseconds since 1970 (rounded), as the layout keeps every time.
    static func milliseconds(_ date: Date) -> Int64 {
        let value = (date.timeIntervalSince1970 * 1000).rounded()
        guard value.isFinite else { return 0 }
        return Int64(max(min(value, 9.0e15), -9.0e15))
    }

    /// The smallest whole millisecond at or after `date`: `start >= date` is `start >= ceiling(date)`.
    static func millisecondsCeiling(_ date: Date) -> Int64 {
        let value = (date.timeIntervalSince1970 * 1000).rounded(.up)
        guard value.isFinite else { return value > 0 ? Int64.max : Int64.min }
        return Int64(max(min(value, 9.0e15), -9.0e15))
    }

    static func date(_ milliseconds: Int64) -> Date {
        Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    /// The key time (first 48 bits) and the last 10 bytes of an id.
    static func split(_ id: UUID) -> (keyTime: Int64, tail: Data) {
        let u = id.uuid
        let time = [u.0, u.1, u.2, u.3, u.4, u.5].reduce(Int64(0)) { $0 << 8 | Int64($1) }
        return (time, Data([u.6, u.7, u.8, u.9, u.10, u.11, u.12, u.13, u.14, u.15]))
    }

    /// The id whose key time and tail these are.
    static func id(keyTime: Int64, tail: Data) -> UUID {
        let t = UInt64(bitPattern: keyTime)
        func b(_ shift: UInt64) -> UInt8 { UInt8(truncatingIfNeeded: t >> shift) }
        let tail = [UInt8](tail) + [UInt8](repeating: 0, count: max(0, 10 - tail.count))
        return UUID(
            uuid: (
                b(40), b(32), b(24), b(16), b(8), b(0), tail[0], tail[1], tail[2], tail[3], tail[4], tail[5],
                tail[6], tail[7], tail[8], tail[9]
            )
        )
    }

    /// The SQL function `carebridgeSampleID(start, idTail, detail)`: the 16 bytes of a row's sample id, as
    /// ``SampleRowReader`` reads it (the key time from the detail when it has one, else `start`), for statements
    /// that copy ids without reading the samples (``OutboxChannelTypesSchema/enqueueStored(_:channel:types:where:)``).
    /// Added to a connection with `db.add(function:)`. (SQLite before 3.41, Debian 12's, has no `unhex` to put the
    /// bytes together in SQL.)
    ///
    /// A NULL start or tail, or a detail that is not a JSON object, fails the statement (`.corruptRow`) instead of
    /// giving NULL, which an `INSERT OR IGNORE` would skip without a word.
    static let idFunction = DatabaseFunction("carebridgeSampleID", argumentCount: 3, pure: true) { values in
        guard let start = Int64.fromDatabaseValue(values[0]), let tail = Data.fromDatabaseValue(values[1]) else {
            throw CareStoreError(.corruptRow, "sample row without a start or an id tail")
        }
        let detail = try SampleDetail(json: String.fromDatabaseValue(values[2]))
        return id(keyTime: detail.keyTime ?? start, tail: tail).data
    }

    // MARK: - Finding rows

    /// Where a row is: its primary key.
    struct RowKey: Sendable, Hashable {
        var type: Int64
        var start: Int64
        var tail: Data
    }

    /// The row of sample `id`, if stored (tombstones too).
    static func row(_ db: Database, id: UUID, reader: inout SampleRowReader) throws -> StoredSampleRow? {
        let (keyTime, tail) = split(id)
        let atKeyTime = try reader.rows(
            db,
            where: "r.type IN (SELECT code FROM quantityType) AND r.start = ? AND r.idTail = ?",
            arguments: [keyTime, tail]
        )
        if let row = atKeyTime.first(where: { $0.id == id }) { return row }
        return try reader.rows(db, where: "r.idTail = ? AND r.detail IS NOT NULL", arguments: [tail])
            .first { $0.id == id }
    }

    /// `r.route IN (…)` for the routes of `patientID` (`IS`: nil is the implicit patient).
    static let patientCondition = "r.route IN (SELECT id FROM sampleRoute WHERE patientID IS ?)"

    /// The codes of `types` that this store has used (a type never stored has none).
    static func typeCodes(_ db: Database, _ types: [String]) throws -> [Int64] {
        guard !types.isEmpty else { return [] }
        return try Int64.fetchAll(
            db,
            sql: "SELECT code FROM quantityType WHERE name IN (\(types.map { _ in "?" }.joined(separator: ",")))",
            arguments: StatementArguments(types)
        )
    }

    // MARK: - Changing rows

    /// Rewrites the state, route and detail of the row at `key` (what deleting, releasing and routing change).
    static func update(
        _ db: Database,
        _ key: RowKey,
        state: Int64,
        route: Int64? = nil,
        detail: SampleDetail
    ) throws {
        if let route {
            try db.execute(
                sql:
                    "UPDATE sampleRow SET state = ?, route = ?, detail = ? WHERE type = ? AND start = ? AND idTail = ?",
                arguments: [state == 0 ? nil : state, route, detail.json, key.type, key.start, key.tail]
            )
        } else {
            try db.execute(
                sql: "UPDATE sampleRow SET state = ?, detail = ? WHERE type = ? AND start = ? AND idTail = ?",
                arguments: [state == 0 ? nil : state, detail.json, key.type, key.start, key.tail]
            )
        }
    }

    /// Marks the sample deleted (a tombstone: a later re-import of the reading stays deleted).
    static func markDeleted(_ db: Database, _ row: StoredSampleRow, at date: Date) throws {
        var detail = row.detail
        detail.deletedDate = date.timeIntervalSince1970
        try update(db, row.key, state: row.state | deletedBit, detail: detail)
    }

    /// Releases a quarantined sample with a note.
    static func release(_ db: Database, _ row: StoredSampleRow, note: String) throws {
        var detail = row.detail
        detail.quarantineReason = nil
        detail.releaseReason = note
        try update(db, row.key, state: row.state & ~quarantinedBit, detail: detail)
    }

    /// Files the sample under a route (patient, inbox reason, rule).
    static func setRoute(_ db: Database, _ row: StoredSampleRow, _ route: SampleRoute) throws {
        let routeID = try routeID(db, route)
        let state = route.inboxReason == nil ? row.state & ~inboxBit : row.state | inboxBit
        try update(db, row.key, state: state, route: routeID, detail: row.detail)
    }

    /// Moves every sample of the implicit patient outside the inbox to `patientID` (routed by `adopted`).
    static func adopt(_ db: Database, patientID: String) throws {
        let target = try routeID(db, SampleRoute(patientID: patientID, routedBy: "adopted"))
        try db.execute(
            sql: """
                UPDATE sampleRow SET route = ?
                WHERE route IN (SELECT id FROM sampleRoute WHERE patientID IS NULL AND inboxReason IS NULL)
                """,
            arguments: [target]
        )
    }

    /// The `sampleRoute` row of `route`, created on first use (0: no patient, not in the inbox, no rule).
    static func routeID(_ db: Database, _ route: SampleRoute) throws -> Int64 {
        if route.patientID == nil, route.inboxReason == nil, route.routedBy == nil { return 0 }
        let arguments: StatementArguments = [route.patientID, route.inboxReason, route.routedBy]
        if let id = try Int64.fetchOne(
            db,
            sql: "SELECT id FROM sampleRoute WHERE patientID IS ? AND inboxReason IS ? AND routedBy IS ?",
            arguments: arguments
        ) {
            return id
        }
        try db.execute(
            sql: "INSERT INTO sampleRoute (patientID, inboxReason, routedBy) VALUES (?, ?, ?)",
            arguments: arguments
        )
        return db.lastInsertedRowID
    }

    // MARK: - Counting

    /// Live samples (not tombstones).
    static func liveCount(_ db: Database) throws -> Int {
        let all = try Int.fetchOne(db, sql: "SELECT count(*) FROM sampleRow") ?? 0
        let deleted =
            try Int.fetchOne(
                db,
                sql: "SELECT count(*) FROM sampleRow WHERE state IS NOT NULL AND state & \(deletedBit) != 0"
            ) ?? 0
        return all - deleted
    }

    /// Live samples with every bit of `bits` set in their state (through the partial index of flagged rows).
    static func liveCount(_ db: Database, flagged bits: Int64) throws -> Int {
        try Int.fetchOne(
            db,
            sql: "SELECT count(*) FROM sampleRow WHERE state IS NOT NULL AND state & ? = ?",
            arguments: [bits | deletedBit, bits]
        ) ?? 0
    }
}

/// What few rows have, as one JSON object in `sampleRow.detail` (NULL when there is nothing): short keys, so a
/// row that has one pays a few bytes.
///
/// `v` the value when it is not the transmitted value converted; `k` key time (ms) when it is not `start`; `e` end (ms) when not `start`; `r` receive time (ms) when not
/// `start`; `d` the device's wall-clock stamp (`YYYY-MM-DDTHH:MM:SS`); `c` clock offset (s); `x` deleted date
/// (s since 1970); `q` quarantine reason; `l` release reason.
struct SampleDetail: Sendable, Hashable {
    var value: Double?
    var keyTime: Int64?
    var end: Int64?
    var receivedAt: Int64?
    var deviceTime: String?
    var clockOffset: Double?
    var deletedDate: Double?
    var quarantineReason: String?
    var releaseReason: String?

    init() {}

    /// Parses a stored detail; nil text is an empty detail.
    /// - Throws: ``CareStoreError`` `.corruptRow` for text that is not such an object.
    init(json text: String?) throws(CareStoreError) {
        guard let text else { return }
        let parsed: JSONValue
        do {
            parsed = try JSONValue.parse(text)
        } catch {
            throw CareStoreError(.corruptRow, "sample detail is not JSON: \(text)")
        }
        guard case .object(let object) = parsed else {
            throw CareStoreError(.corruptRow, "sample detail is not a JSON object: \(text)")
        }
        func integer(_ key: String) -> Int64? {
            switch object[key] {
            case .int(let value): Int64(value)
            case .double(let value): Int64(value)
            default: nil
            }
        }
        func double(_ key: String) -> Double? {
            switch object[key] {
            case .int(let value): Double(value)
            case .double(let value): value
            default: nil
            }
        }
        func string(_ key: String) -> String? {
            if case .string(let value) = object[key] { return value }
            return nil
        }
        // ±∞ (a LO/HI without a known limit) as text: JSON has no such number.
        value = double("v") ?? string("v").flatMap(Double.init)
        keyTime = integer("k")
        end = integer("e")
        receivedAt = integer("r")
        deviceTime = string("d")
        clockOffset = double("c")
        deletedDate = double("x")
        quarantineReason = string("q")
        releaseReason = string("l")
    }

    /// The stored form: NULL when empty, else a JSON object with the keys present.
    var json: String? {
        var parts: [String] = []
        if let value { parts.append(value.isFinite ? "\"v\":\(value)" : "\"v\":\"\(value)\"") }
        if let keyTime { parts.append("\"k\":\(keyTime)") }
        if let end { parts.append("\"e\":\(end)") }
        if let receivedAt { parts.append("\"r\":\(receivedAt)") }
        func text(_ key: String, _ value: String) {
            var json = "\"\(key)\":"
            JSONValue.writeString(value, into: &json)
            parts.append(json)
        }
        if let deviceTime { text("d", deviceTime) }
        if let clockOffset, clockOffset.isFinite { parts.append("\"c\":\(clockOffset)") }
        if let deletedDate, deletedDate.isFinite { parts.append("\"x\":\(deletedDate)") }
        if let quarantineReason { text("q", quarantineReason) }
        if let releaseReason { text("l", releaseReason) }
        return parts.isEmpty ? nil : "{" + parts.joined(separator: ",") + "}"
    }
}

/// The small lookup tables of the layout, read once per operation: type names, series, routes, recording times
/// and (on demand) metadata.
struct SampleCodes {
    struct Series {
        var unit: String
        var transmittedUnit: String
        var sourceKind: String
        var characteristic: String?
        var decoder: String?
        var device: String?
        var sampleIndex: Int
        var comparator: String?
    }

    var types: [Int64: String] = [:]
    var series: [Int64: Series] = [:]
    var routes: [Int64: SampleRoute] = [0: SampleRoute()]
    /// `(firstOrigin, recordedAt ms)`, ascending.
    var batches: [(Int64, Int64)] = []
    var metadata: [Int64: String] = [:]

    init(_ db: Database) throws {
        for row in try Row.fetchAll(db, sql: "SELECT code, name FROM quantityType") { types[row[0]] = row[1] }
        for row in try Row.fetchAll(
            db,
            sql: """
                SELECT s.id, s.unit, s.transmittedUnit, s.sourceKind, s.characteristic, s.decoder, d.identity,
                s.sampleIndex, s.comparator FROM sampleSeries AS s LEFT JOIN device AS d ON d.id = s.deviceID
                """
        ) {
            series[row[0]] = Series(
                unit: row[1],
                transmittedUnit: row[2],
                sourceKind: row[3],
                characteristic: row[4],
                decoder: row[5],
                device: row[6],
                sampleIndex: row[7],
                comparator: row[8]
            )
        }
        for row in try Row.fetchAll(db, sql: "SELECT id, patientID, inboxReason, routedBy FROM sampleRoute") {
            routes[row[0]] = SampleRoute(patientID: row[1], inboxReason: row[2], routedBy: row[3])
        }
        batches = try Row.fetchAll(db, sql: "SELECT firstOrigin, recordedAt FROM sampleBatch ORDER BY firstOrigin")
            .map { ($0[0], $0[1]) }
    }

    /// When origin `origin` was recorded (ms): the batch with the largest first origin at or before it.
    func recordedAt(origin: Int64) -> Int64 {
        batch(of: origin).recordedAt
    }

    /// The batch `origin` belongs to: the origins `lower..<upper`, recorded at `recordedAt` (ms; 0 before the
    /// first batch).
    func batch(of origin: Int64) -> (lower: Int64, upper: Int64, recordedAt: Int64) {
        var low = 0
        var high = batches.count
        while low < high {
            let middle = (low + high) / 2
            if batches[middle].0 <= origin { low = middle + 1 } else { high = middle }
        }
        return (
            lower: low > 0 ? batches[low - 1].0 : Int64.min,
            upper: low < batches.count ? batches[low].0 : Int64.max,
            recordedAt: low > 0 ? batches[low - 1].1 : 0
        )
    }

    /// The metadata JSON of id `id` (read once).
    mutating func metadataJSON(_ id: Int64, db: Database) throws -> String? {
        if let known = metadata[id] { return known }
        guard let json = try String.fetchOne(db, sql: "SELECT json FROM sampleMetadata WHERE id = ?", arguments: [id])
        else { return nil }
        if metadata.count >= 4096 { metadata.removeAll(keepingCapacity: true) }
        metadata[id] = json
        return json
    }
}
