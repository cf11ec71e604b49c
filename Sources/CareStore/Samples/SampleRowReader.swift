import BridgeCore
import BridgeFoundation
import Foundation
import GATTDecoding
import GRDB
import GRDBSQLite

/// The one decoder of the compact layout's rows (``columns`` over ``SampleTable/from``) into ``StoredSample``s:
/// ``samples(_:where:arguments:suffix:limit:typeCode:reservations:)`` for queries (``CareStore/samples(matching:)``
/// and its cursor), ``rows(_:where:arguments:suffix:)`` for single samples and the changes that rewrite the rows
/// they read (with each row's key, state and detail).
///
/// The columns are read through the SQLite C API from a cached prepared statement, and everything rows share is
/// decoded once per operation instead of once per row — a series' units, type and source (characteristic,
/// decoder, device identity), a route, a metadata dictionary (by its interned id), the recording time of a run of
/// origins. A row then costs its id, its payload bytes, its detail (only when it has one) and the sample itself.
struct SampleRowReader {
    /// What the samples of one `sampleSeries` row share, decoded (a class: a row takes it with one retain).
    private final class Series {
        let unit: HealthUnit
        let transmittedUnit: HealthUnit
        /// Nil for a stored source kind this release does not know (the row is then corrupt).
        let source: SampleSource?
        let sourceKind: String
        let sampleIndex: Int
        let comparator: ValueComparator?

        init(
            unit: HealthUnit,
            transmittedUnit: HealthUnit,
            source: SampleSource?,
            sourceKind: String,
            sampleIndex: Int,
            comparator: ValueComparator?
        ) {
            self.unit = unit
            self.transmittedUnit = transmittedUnit
            self.source = source
            self.sourceKind = sourceKind
            self.sampleIndex = sampleIndex
            self.comparator = comparator
        }
    }

    /// The columns read, in order, with ``SampleTable/from``. Not the state: a query's conditions test it, and
    /// the sample has what it means in its detail; ``rows(_:where:arguments:suffix:)`` reads it after these.
    static let columns = """
        r.type, r.start, r.idTail, r.series, r.origin, r.transmittedValue, r.route, r.detail, o.payload, o.metadata
        """
    /// The column of ``columns`` + `r.state` that holds the state.
    private static let stateColumn: Int32 = 10

    private var codes: SampleCodes
    /// Type codes to types; nil for a stored name this release does not know.
    private var types: [Int64: QuantityType?] = [:]
    private var series: [Int64: Series] = [:]
    /// Decoded metadata by `sampleMetadata` id (bounded: free-text notes make many distinct values).
    private var metadata: [Int64: [String: String]] = [:]
    private var lastType: (code: Int64, type: QuantityType?)?
    private var lastSeries: (id: Int64, series: Series)?
    private var lastRoute: (id: Int64, notes: StoredSample.Notes)?
    /// The notes of each route read so far, shared by its samples (one box per route, not one per sample).
    private var routeNotes: [Int64: StoredSample.Notes] = [:]
    private var lastMetadata: (id: Int64, metadata: [String: String])?
    /// The origins `lower..<upper` were recorded at `recordedAt` (ms): the batch of the last origin read.
    private var batch: (lower: Int64, upper: Int64, recordedAt: Int64)?

    /// Reads the lookup tables of the layout (``SampleCodes``) and decodes what their rows share.
    init(_ db: Database) throws {
        codes = try SampleCodes(db)
        var devices: [String: DeviceIdentity] = [:]
        for (name, code) in codes.types.map({ ($0.value, $0.key) }) {
            types[code] = QuantityType(rawValue: name)
        }
        for (id, stored) in codes.series {
            var device: DeviceIdentity?
            if let json = stored.device {
                if let known = devices[json] {
                    device = known
                } else {
                    device = try? JSONDecoder().decode(DeviceIdentity.self, from: Data(json.utf8))
                    if let device { devices[json] = device }
                }
            }
            let unit = HealthUnit(rawValue: stored.unit)
            let transmittedUnit = HealthUnit(rawValue: stored.transmittedUnit)
            series[id] = Series(
                unit: unit,
                transmittedUnit: transmittedUnit,
                source: SampleSource.Kind(rawValue: stored.sourceKind).map { kind in
                    SampleSource(
                        kind: kind,
                        characteristic: stored.characteristic.flatMap { BluetoothUUID($0) },
                        decoder: stored.decoder,
                        device: device
                    )
                },
                sourceKind: stored.sourceKind,
                sampleIndex: stored.sampleIndex,
                comparator: stored.comparator.flatMap(ValueComparator.init(rawValue:))
            )
        }
    }

    /// Room made for the samples of a read at once: a page of up to this many rows gets room for all of them.
    static let firstReservation = 10_000

    /// The bytes of room made for the samples of a read that goes past ``firstReservation`` rows (an unlimited
    /// read), instead of counting its rows before reading them.
    ///
    /// Counting walks the key range a second time (about a sixth of the one-day query); growing the array
    /// step by step copies it at each step and touches fresh memory each time. Unused room is mostly address
    /// space: its pages are backed only where this or an earlier allocation wrote. Below 32 MB (glibc's highest
    /// mmap threshold; 48 MB made the query slower than counting) so that, as with the counted size before, a
    /// process reading such days again reuses the memory of the last one from the heap instead of mapping and
    /// faulting in fresh pages for each; a result that does not fit grows from there.
    static let largeReservationBytes = 30 << 20

    /// ``largeReservationBytes`` in samples.
    static var largeReservation: Int { largeReservationBytes / MemoryLayout<StoredSample>.stride }

    /// The samples of the rows `condition` selects (over `r`, the row, and `o`, its origin), then `suffix`
    /// (ORDER BY, LIMIT), in the statement's order.
    ///
    /// Room for up to `limit` samples (the statement's LIMIT, if it has one) is made in two steps, without
    /// counting the rows first: up to ``firstReservation`` at once, then, for a read that fills that, up to
    /// ``largeReservation``. A result that fills less than a quarter of large room is copied into an array of
    /// its own size, so that a caller keeping it does not keep the room.
    /// - Parameters:
    ///   - typeCode: the type code every row selected has, when `condition` names exactly one: the type column is
    ///     then not read.
    ///   - reservations: the two steps of room, in samples (tests make them small).
    /// - Throws: ``CareStoreError`` `.corruptRow` for a row naming an unknown type, series or source kind, or
    ///   with a detail that is not a JSON object; a `DatabaseError` when SQLite fails.
    mutating func samples(
        _ db: Database,
        where condition: String,
        arguments: StatementArguments,
        suffix: String = "",
        limit: Int = .max,
        typeCode: Int64? = nil,
        reservations: (first: Int, large: Int) = (firstReservation, largeReservation)
    ) throws -> [StoredSample] {
        try samples(
            db,
            sql: Self.select(Self.columns, where: condition, suffix: suffix),
            arguments: arguments,
            limit: limit,
            typeCode: typeCode,
            reservations: reservations
        )
    }

    /// The samples of `sql`, a `SELECT` of ``columns`` (over ``SampleTable/from``, or a compound of such), in the
    /// statement's order; as ``samples(_:where:arguments:suffix:limit:typeCode:reservations:)``.
    mutating func samples(
        _ db: Database,
        sql: String,
        arguments: StatementArguments,
        limit: Int = .max,
        typeCode: Int64? = nil,
        reservations: (first: Int, large: Int) = (firstReservation, largeReservation)
    ) throws -> [StoredSample] {
        let handle = try Self.prepare(db, sql: sql, arguments: arguments)
        defer { sqlite3_reset(handle) }
        var result: [StoredSample] = []
        result.reserveCapacity(min(limit, reservations.first))
        while try Self.step(handle, db: db, sql: sql) {
            if result.count == result.capacity, result.count < reservations.large, result.count < limit {
                // Moved, not copied: the array is not shared yet.
                result.reserveCapacity(min(limit, reservations.large))
            }
            result.append(try sample(handle, db: db, typeCode: typeCode, detail: Self.detail(handle)))
        }
        if result.capacity > reservations.first, result.count < result.capacity / 4 {
            var exact: [StoredSample] = []
            exact.reserveCapacity(result.count)
            exact.append(contentsOf: result)
            return exact
        }
        return result
    }

    /// The rows `condition` selects, then `suffix`, in the statement's order: each sample as
    /// ``samples(_:where:arguments:suffix:limit:typeCode:reservations:)`` reads it, with where its row is and what
    /// a change rewrites (state, detail). For single samples and the few rows a change reads.
    /// - Throws: as ``samples(_:where:arguments:suffix:limit:typeCode:reservations:)``.
    mutating func rows(
        _ db: Database,
        where condition: String,
        arguments: StatementArguments,
        suffix: String = ""
    ) throws -> [StoredSampleRow] {
        var rows: [StoredSampleRow] = []
        try forEachRow(db, where: condition, arguments: arguments, suffix: suffix) { rows.append($0) }
        return rows
    }

    /// ``rows(_:where:arguments:suffix:)`` one at a time, for scans too long to hold (retention's candidates).
    /// `body` must not run this reader's statement again.
    mutating func forEachRow(
        _ db: Database,
        where condition: String,
        arguments: StatementArguments,
        suffix: String = "",
        _ body: (StoredSampleRow) throws -> Void
    ) throws {
        let sql = Self.select(Self.columns + ", r.state", where: condition, suffix: suffix)
        let handle = try Self.prepare(db, sql: sql, arguments: arguments)
        defer { sqlite3_reset(handle) }
        while try Self.step(handle, db: db, sql: sql) {
            let detail = try Self.detail(handle)
            let stored = try sample(handle, db: db, typeCode: nil, detail: detail)
            let tail =
                sqlite3_column_blob(handle, 2).map { Data(bytes: $0, count: Int(sqlite3_column_bytes(handle, 2))) }
                ?? Data()
            try body(
                StoredSampleRow(
                    stored: stored,
                    key: SampleTable.RowKey(
                        type: sqlite3_column_int64(handle, 0),
                        start: sqlite3_column_int64(handle, 1),
                        tail: tail
                    ),
                    // NULL (a usable live sample) reads as 0.
                    state: sqlite3_column_int64(handle, Self.stateColumn),
                    detail: detail,
                    series: sqlite3_column_int64(handle, 3)
                )
            )
        }
    }

    /// `SELECT columns FROM … WHERE condition suffix`.
    private static func select(_ columns: String, where condition: String, suffix: String) -> String {
        "SELECT \(columns) FROM \(SampleTable.from) \(condition.isEmpty ? "" : "WHERE " + condition) \(suffix)"
    }

    /// The cached statement of `sql` with its arguments bound.
    private static func prepare(_ db: Database, sql: String, arguments: StatementArguments) throws -> OpaquePointer {
        let statement = try db.cachedStatement(sql: sql)
        try statement.setArguments(arguments)
        return statement.sqliteStatement
    }

    /// Steps to the next row: false when there is none.
    /// - Throws: `DatabaseError` when SQLite fails.
    private static func step(_ handle: OpaquePointer, db: Database, sql: String) throws -> Bool {
        let code = sqlite3_step(handle)
        if code == SQLITE_ROW { return true }
        if code == SQLITE_DONE { return false }
        let message = String(cString: sqlite3_errmsg(db.sqliteConnection))
        throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: sql)
    }

    /// The detail of the row `handle` is on (empty for NULL).
    /// - Throws: ``CareStoreError`` `.corruptRow` for a detail that is not a JSON object.
    private static func detail(_ handle: OpaquePointer) throws -> SampleDetail {
        guard let text = sqlite3_column_text(handle, 7) else { return SampleDetail() }
        return try SampleDetail(json: String(cString: text))
    }

    /// The sample of the row `handle` is on, whose detail is `detail`.
    private mutating func sample(
        _ handle: OpaquePointer,
        db: Database,
        typeCode: Int64?,
        detail: SampleDetail
    ) throws -> StoredSample {
        let typeCode = typeCode ?? sqlite3_column_int64(handle, 0)
        let start = sqlite3_column_int64(handle, 1)
        let seriesID = sqlite3_column_int64(handle, 3)
        let origin = sqlite3_column_int64(handle, 4)
        let transmittedValue = sqlite3_column_double(handle, 5)
        let routeID = sqlite3_column_int64(handle, 6)
        guard let known = type(typeCode), let series = series(seriesID) else {
            throw CareStoreError(.corruptRow, "sample row (type \(typeCode), series \(seriesID)) names no known code")
        }
        let id = Self.id(keyTime: detail.keyTime ?? start, handle: handle, column: 2)
        guard let type = known, let source = series.source else {
            throw CareStoreError(
                .corruptRow,
                "sample \(id): unknown type '\(codes.types[typeCode] ?? "")' or source '\(series.sourceKind)'"
            )
        }
        let value =
            detail.value ?? series.transmittedUnit.convert(transmittedValue, to: series.unit) ?? transmittedValue
        var meta: [String: String] = [:]
        // One call for a row with metadata: NULL reads as 0, so only a 0 needs its type asked for.
        let metadataID = sqlite3_column_int64(handle, 9)
        if metadataID != 0 || sqlite3_column_type(handle, 9) != SQLITE_NULL {
            meta = try metadata(metadataID, db: db)
        }
        let startDate = SampleTable.date(start)
        // Read in place, valid until the next step: the sample copies the bytes into its provenance box, inline
        // when they are short (a heart-rate notification: no array of its own).
        let payload = UnsafeRawBufferPointer(
            start: sqlite3_column_blob(handle, 8),
            count: Int(sqlite3_column_bytes(handle, 8))
        )
        // The fields through the sample's initialiser (given the id, it derives none), then the payload copied in.
        var draft = QuantitySample(
            type: type,
            value: value,
            unit: series.unit,
            start: startDate,
            end: detail.end.map(SampleTable.date) ?? startDate,
            transmittedValue: transmittedValue,
            transmittedUnit: series.transmittedUnit,
            source: source,
            deviceTime: detail.deviceTime.flatMap(SampleRecord.parseDeviceTime),
            receivedAt: detail.receivedAt.map(SampleTable.date) ?? startDate,
            clockOffset: detail.clockOffset,
            index: series.sampleIndex,
            metadata: meta,
            comparator: series.comparator,
            quarantineReason: detail.quarantineReason,
            id: id
        ).draft
        draft.replacePayload(copying: payload)
        let sample = QuantitySample(draft, id: id)
        var notes = notes(route: routeID)
        if let releaseReason = detail.releaseReason { notes = StoredSample.Notes(notes, releaseReason: releaseReason) }
        return StoredSample(
            sample: sample,
            recordedAt: SampleTable.date(recordedAt(origin: origin)),
            deletedDate: detail.deletedDate.map(Date.init(timeIntervalSince1970:)),
            notes: notes
        )
    }

    /// The type of code `code` (the last one asked for is kept: a query reads its rows type by type); nil for an
    /// unknown code, `.some(nil)` for a name this release does not know.
    private mutating func type(_ code: Int64) -> QuantityType?? {
        if let lastType, lastType.code == code { return lastType.type }
        guard let type = types[code] else { return nil }
        lastType = (code, type)
        return type
    }

    /// The decoded series of id `id`, the last one asked for kept (the rows of one type alternate between few).
    private mutating func series(_ id: Int64) -> Series? {
        if let lastSeries, lastSeries.id == id { return lastSeries.series }
        guard let series = series[id] else { return nil }
        lastSeries = (id, series)
        return series
    }

    /// The route of id `id` (none for an unknown id) as the notes its samples share, the last one asked for kept.
    private mutating func notes(route id: Int64) -> StoredSample.Notes {
        if let lastRoute, lastRoute.id == id { return lastRoute.notes }
        let notes =
            routeNotes[id]
            ?? {
                let route = codes.routes[id] ?? SampleRoute()
                return StoredSample.Notes.make(
                    patientID: route.patientID,
                    inboxReason: route.inboxReason,
                    routedBy: route.routedBy
                )
            }()
        routeNotes[id] = notes
        lastRoute = (id, notes)
        return notes
    }

    /// The metadata of `sampleMetadata` row `id`: empty when there is no such row or its JSON is not an object
    /// of strings.
    private mutating func metadata(_ id: Int64, db: Database) throws -> [String: String] {
        if let lastMetadata, lastMetadata.id == id { return lastMetadata.metadata }
        if let known = metadata[id] {
            lastMetadata = (id, known)
            return known
        }
        var decoded: [String: String] = [:]
        if let json = try codes.metadataJSON(id, db: db) {
            decoded = (try? JSONDecoder().decode([String: String].self, from: Data(json.utf8))) ?? [:]
        }
        if metadata.count >= 4096 { metadata.removeAll(keepingCapacity: true) }
        metadata[id] = decoded
        lastMetadata = (id, decoded)
        return decoded
    }

    /// When `origin` was recorded (ms): ``SampleCodes/batch(of:)``, looked up once per batch of origins.
    private mutating func recordedAt(origin: Int64) -> Int64 {
        if let batch, batch.lower <= origin, origin < batch.upper { return batch.recordedAt }
        let found = codes.batch(of: origin)
        batch = found
        return found.recordedAt
    }

    /// ``SampleTable/id(keyTime:tail:)`` with the tail read from a blob column, without copying it.
    private static func id(keyTime: Int64, handle: OpaquePointer, column: Int32) -> UUID {
        let count = Int(sqlite3_column_bytes(handle, column))
        let bytes = sqlite3_column_blob(handle, column).map { UnsafeRawBufferPointer(start: $0, count: count) }
        func tail(_ index: Int) -> UInt8 {
            guard let bytes, index < bytes.count else { return 0 }
            return bytes[index]
        }
        let t = UInt64(bitPattern: keyTime)
        func b(_ shift: UInt64) -> UInt8 { UInt8(truncatingIfNeeded: t >> shift) }
        return UUID(
            uuid: (
                b(40), b(32), b(24), b(16), b(8), b(0), tail(0), tail(1), tail(2), tail(3), tail(4), tail(5),
                tail(6), tail(7), tail(8), tail(9)
            )
        )
    }
}
