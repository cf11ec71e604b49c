import BridgeCore
import BridgeFoundation
import Foundation
import GATTDecoding
import GRDB
import GRDBSQLite

/// The hot ingest path into the compact layout (``SampleTable``): one prepared insert whose columns are bound
/// through the SQLite C API, and every lookup-table row (type code, series, device, metadata, route, the
/// notification's origin row) found once per run of equal values.
final class SampleInserter {
    static let insertSQL = """
        INSERT OR IGNORE INTO sampleRow (
            type, start, idTail, series, origin, transmittedValue, state, route, detail
        ) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
        """

    private let db: Database
    private let statement: Statement
    private let findDetailed: Statement
    private let findAtKeyTime: Statement
    private let insertOrigin: Statement
    private let enqueue: Statement?
    /// What this inserter found and wrote, for the next one (``IngestSession``).
    private(set) var memory: Memory
    /// The origin row of the previous sample: the next one shares it when payload, metadata and recording time
    /// are the same (the samples of one notification).
    private var lastOrigin: (payload: [UInt8], metadata: Int64?, recordedAt: Int64, id: Int64)?

    /// What an inserter learnt about the store that the next one can start from: the ids of lookup-table rows
    /// (never deleted while a store is open, so true until a transaction that wrote them rolls back), and facts
    /// about the rows that stay true only while nothing but inserters writes (``rows``).
    struct Memory: Sendable {
        fileprivate var devices: [DeviceIdentity: Int64] = [:]
        fileprivate var lastDevice: (DeviceIdentity, Int64)?
        fileprivate var lastMetadata: ([String: String], Int64)?
        fileprivate var metadataIDs: [String: Int64] = [:]
        fileprivate var lastCharacteristic: (BluetoothUUID, String)?
        fileprivate var typeCodes: [QuantityType: Int64] = [:]
        fileprivate var series: [SeriesKey: Int64] = [:]
        fileprivate var recentSeries: [(probe: SeriesProbe, id: Int64)] = []
        fileprivate var routes: [SampleRoute: Int64] = [:]
        fileprivate var lastRoute: (SampleRoute, Int64)?
        fileprivate var lastType: (QuantityType, Int64)?
        /// Nil: read again from the store (anything else may have written since).
        var rows: Rows?
    }

    /// Facts about the stored rows that another writer can change.
    struct Rows: Sendable {
        /// The next origin id and the recording time its batch has (nil until the first origin is written).
        fileprivate var nextOrigin: (id: Int64, batchRecordedAt: Int64?)?
        /// Whether any row has a detail (else the partial index need not be searched for a duplicate).
        fileprivate var anyDetailed: Bool
        /// Whether an outbox channel is enabled (each new sample is queued for it).
        fileprivate var enqueues: Bool
    }

    fileprivate struct SeriesKey: Hashable {
        var unit: HealthUnit
        var transmittedUnit: HealthUnit
        var kind: SampleSource.Kind
        var characteristic: BluetoothUUID?
        var decoder: String?
        var device: Int64?
        var index: Int
        var comparator: ValueComparator?
    }
    /// What a sample's series is told by, compared without hashing: the few series of the last samples (a heart
    /// rate and its RR intervals alternate between two) are found by a linear look before the dictionary.
    fileprivate struct SeriesProbe: Equatable {
        var unit: HealthUnit
        var transmittedUnit: HealthUnit
        var index: Int
        var comparator: ValueComparator?
        var source: SampleSource
    }

    /// - Parameters:
    ///   - memory: what an earlier inserter on this connection learnt (``IngestSession``); its ``Memory/rows``
    ///     are read again when nil.
    ///   - enqueueOutbox: queue each new sample for every enabled outbox channel (false: the migration, which
    ///     copies samples that were queued or published already).
    init(db: Database, memory: Memory = Memory(), enqueueOutbox: Bool = true) throws {
        self.db = db
        self.memory = memory
        statement = try db.cachedStatement(sql: Self.insertSQL)
        findDetailed = try db.cachedStatement(
            sql: "SELECT type, start, detail, origin FROM sampleRow WHERE idTail = ? AND detail IS NOT NULL"
        )
        findAtKeyTime = try db.cachedStatement(
            sql: "SELECT origin FROM sampleRow WHERE type = ? AND start = ? AND idTail = ?"
        )
        insertOrigin = try db.cachedStatement(
            sql: "INSERT INTO sampleOrigin (id, payload, metadata) VALUES (?, coalesce(?, x''), ?)"
        )
        if self.memory.rows == nil {
            self.memory.rows = Rows(
                nextOrigin: nil,
                anyDetailed: try Bool.fetchOne(
                    db,
                    sql: "SELECT EXISTS (SELECT 1 FROM sampleRow WHERE detail IS NOT NULL)"
                ) ?? false,
                enqueues: try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM outboxChannel)") ?? false
            )
        }
        if enqueueOutbox, self.memory.rows?.enqueues == true {
            enqueue = try db.cachedStatement(sql: OutboxChannelTypesSchema.enqueueSQL)
        } else {
            enqueue = nil
        }
    }

    /// The `device` row of `identity`, created on first use.
    func deviceID(_ identity: DeviceIdentity) throws -> Int64 {
        if let last = memory.lastDevice, last.0 == identity { return last.1 }
        let id: Int64
        if let known = memory.devices[identity] {
            id = known
        } else {
            let json = SampleRecord.encodeDevice(identity)
            if let existing = try Int64.fetchOne(db, sql: "SELECT id FROM device WHERE identity = ?", arguments: [json])
            {
                id = existing
            } else {
                try db.execute(sql: "INSERT INTO device (identity) VALUES (?)", arguments: [json])
                id = db.lastInsertedRowID
            }
            memory.devices[identity] = id
        }
        memory.lastDevice = (identity, id)
        return id
    }

    /// Inserts one new sample row.
    /// - Returns: false when a row with this id already exists (the same reading, stored before).
    func insert(
        _ sample: QuantitySample,
        id: UUID,
        recordedAt: Double,
        route: SampleRoute = .implicit
    ) throws -> Bool {
        var state: Int64 = 0
        if sample.quarantineReason != nil { state |= SampleTable.quarantinedBit }
        if route.inboxReason != nil { state |= SampleTable.inboxBit }
        return try write(
            sample,
            id: id,
            recordedAt: SampleTable.milliseconds(Date(timeIntervalSince1970: recordedAt)),
            route: route,
            state: state,
            deletedDate: nil,
            releaseReason: nil,
            checkDuplicate: true
        )
    }

    /// Copies a sample of the layout before `"v10-compact-samples"` (the migration): its stored id, times,
    /// state and route exactly as they were.
    func copy(_ stored: StoredSample) throws {
        var state: Int64 = 0
        if stored.deletedDate != nil { state |= SampleTable.deletedBit }
        if stored.sample.quarantineReason != nil { state |= SampleTable.quarantinedBit }
        if stored.inboxReason != nil { state |= SampleTable.inboxBit }
        _ = try write(
            stored.sample,
            id: stored.id,
            recordedAt: SampleTable.milliseconds(stored.recordedAt),
            route: SampleRoute(patientID: stored.patientID, inboxReason: stored.inboxReason, routedBy: stored.routedBy),
            state: state,
            deletedDate: stored.deletedDate,
            releaseReason: stored.releaseReason,
            checkDuplicate: false
        )
    }

    private func write(
        _ sample: QuantitySample,
        id: UUID,
        recordedAt: Int64,
        route: SampleRoute,
        state: Int64,
        deletedDate: Date?,
        releaseReason: String?,
        checkDuplicate: Bool
    ) throws -> Bool {
        let (keyTime, tail) = SampleTable.split(id)
        let start = SampleTable.milliseconds(sample.start)
        let type = try typeCode(sample.type)
        if checkDuplicate, let existing = try existingRow(type: type, keyTime: keyTime, start: start, tail: tail) {
            if !sample.metadata.isEmpty { try addMissingMetadata(sample.metadata, to: existing) }
            return false
        }
        var detail = SampleDetail()
        let derived = sample.transmittedUnit.convert(sample.transmittedValue, to: sample.unit)
        if derived?.bitPattern != sample.value.bitPattern { detail.value = sample.value }
        if keyTime != start { detail.keyTime = keyTime }
        let end = SampleTable.milliseconds(sample.end)
        if end != start { detail.end = end }
        let received = SampleTable.milliseconds(sample.receivedAt)
        if received != start { detail.receivedAt = received }
        detail.deviceTime = sample.deviceTime?.description
        detail.clockOffset = sample.clockOffset
        detail.deletedDate = deletedDate?.timeIntervalSince1970
        detail.quarantineReason = sample.quarantineReason
        detail.releaseReason = releaseReason
        let detailJSON = detail.json

        let seriesID = try seriesID(sample)
        let origin = try originID(payload: sample.rawPayload, metadata: sample.metadata, recordedAt: recordedAt)
        let routeID = try routeID(route)

        let handle = statement.sqliteStatement
        sqlite3_reset(handle)
        sqlite3_bind_int64(handle, 1, type)
        sqlite3_bind_int64(handle, 2, start)
        tail.withUnsafeBytes { bytes in
            _ = sqlite3_bind_blob(handle, 3, bytes.baseAddress, Int32(bytes.count), sqliteTransient)
        }
        sqlite3_bind_int64(handle, 4, seriesID)
        sqlite3_bind_int64(handle, 5, origin)
        sqlite3_bind_double(handle, 6, sample.transmittedValue)
        if state == 0 { sqlite3_bind_null(handle, 7) } else { sqlite3_bind_int64(handle, 7, state) }
        sqlite3_bind_int64(handle, 8, routeID)
        bind(handle, 9, detailJSON)
        let code = sqlite3_step(handle)
        guard code == SQLITE_DONE else {
            let message = String(cString: sqlite3_errmsg(db.sqliteConnection))
            sqlite3_reset(handle)
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: Self.insertSQL)
        }
        guard sqlite3_changes(db.sqliteConnection) > 0 else {
            guard checkDuplicate else {
                throw CareStoreError(.corruptRow, "sample \(id.uuidString.lowercased()) is stored twice")
            }
            if !sample.metadata.isEmpty {
                try addMissingMetadata(sample.metadata, to: SampleTable.RowKey(type: type, start: start, tail: tail))
            }
            return false
        }
        if detailJSON != nil { memory.rows?.anyDetailed = true }
        if let enqueue {
            enqueue.setUncheckedArguments([id.data, Double(recordedAt) / 1000, sample.type.rawValue])
            try enqueue.execute()
        }
        return true
    }

    /// The row already holding this id, if any: at its key time, or (a row whose start is not its key time)
    /// through the partial index over rows with a detail.
    private func existingRow(type: Int64, keyTime: Int64, start: Int64, tail: Data) throws -> SampleTable.RowKey? {
        if keyTime != start {
            findAtKeyTime.setUncheckedArguments([type, keyTime, tail])
            if try Row.fetchOne(findAtKeyTime) != nil {
                return SampleTable.RowKey(type: type, start: keyTime, tail: tail)
            }
        }
        guard memory.rows?.anyDetailed ?? true else { return nil }
        findDetailed.setUncheckedArguments([tail])
        for row in try Row.fetchAll(findDetailed) {
            let rowType: Int64 = row[0]
            let rowStart: Int64 = row[1]
            let detail = try SampleDetail(json: row[2])
            if rowType == type, (detail.keyTime ?? rowStart) == keyTime {
                return SampleTable.RowKey(type: rowType, start: rowStart, tail: tail)
            }
        }
        return nil
    }

    /// A repeat of a stored reading (a record downloaded again after an interrupted download) adds the metadata
    /// keys the stored copy lacks: a glucose context that came only with the repeat stays attached to its
    /// measurement across sessions. Nothing already stored changes: value, times and existing keys stay. The
    /// row gets an origin of its own (same payload and recording time), so the samples that shared its old one
    /// keep their metadata.
    private func addMissingMetadata(_ metadata: [String: String], to key: SampleTable.RowKey) throws {
        guard
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT r.origin, o.payload, m.json FROM sampleRow AS r JOIN sampleOrigin AS o ON o.id = r.origin
                    LEFT JOIN sampleMetadata AS m ON m.id = o.metadata
                    WHERE r.type = ? AND r.start = ? AND r.idTail = ?
                    """,
                arguments: [key.type, key.start, key.tail]
            )
        else { return }
        let origin: Int64 = row[0]
        let payload: Data = row[1]
        let storedText: String? = row[2]
        var stored: [String: String] = [:]
        if let storedText {
            guard let decoded = try? JSONDecoder().decode([String: String].self, from: Data(storedText.utf8)) else {
                return  // not ours to rewrite
            }
            stored = decoded
        }
        let missing = metadata.filter { stored[$0.key] == nil }
        guard !missing.isEmpty else { return }
        stored.merge(missing) { kept, _ in kept }
        let recordedAt = try SampleCodes(db).recordedAt(origin: origin)
        lastOrigin = nil
        let newOrigin = try newOriginID(
            payload: [UInt8](payload),
            metadata: try metadataID(SampleRecord.encodeMetadata(stored)),
            recordedAt: recordedAt
        )
        lastOrigin = nil
        try db.execute(
            sql: "UPDATE sampleRow SET origin = ? WHERE type = ? AND start = ? AND idTail = ?",
            arguments: [newOrigin, key.type, key.start, key.tail]
        )
    }

    private func typeCode(_ type: QuantityType) throws -> Int64 {
        if let last = memory.lastType, last.0 == type { return last.1 }
        if let known = memory.typeCodes[type] {
            memory.lastType = (type, known)
            return known
        }
        let code: Int64
        if let existing = try Int64.fetchOne(
            db,
            sql: "SELECT code FROM quantityType WHERE name = ?",
            arguments: [type.rawValue]
        ) {
            code = existing
        } else {
            try db.execute(sql: "INSERT INTO quantityType (name) VALUES (?)", arguments: [type.rawValue])
            code = db.lastInsertedRowID
        }
        memory.typeCodes[type] = code
        return code
    }

    private func seriesID(_ sample: QuantitySample) throws -> Int64 {
        let source = sample.source
        let probe = SeriesProbe(
            unit: sample.unit,
            transmittedUnit: sample.transmittedUnit,
            index: sample.index,
            comparator: sample.comparator,
            source: source
        )
        for recent in memory.recentSeries where recent.probe == probe { return recent.id }
        let id = try seriesID(sample, source: source)
        if memory.recentSeries.count >= 4 { memory.recentSeries.removeLast() }
        memory.recentSeries.insert((probe, id), at: 0)
        return id
    }

    /// The series of a reading, by everything its samples share (through `sampleSeries_on_deviceID`,
    /// ``SeriesIndexSchema``: a store that heard from many devices does not scan them all for each new one).
    static let seriesLookupSQL = """
        SELECT id FROM sampleSeries WHERE unit = ? AND transmittedUnit = ? AND sourceKind = ?
        AND characteristic IS ? AND decoder IS ? AND deviceID IS ? AND sampleIndex = ? AND comparator IS ?
        """

    private func seriesID(_ sample: QuantitySample, source: SampleSource) throws -> Int64 {
        let key = SeriesKey(
            unit: sample.unit,
            transmittedUnit: sample.transmittedUnit,
            kind: source.kind,
            characteristic: source.characteristic,
            decoder: source.decoder,
            device: try source.device.map(deviceID),
            index: sample.index,
            comparator: sample.comparator
        )
        if let known = memory.series[key] { return known }
        let arguments: StatementArguments = [
            key.unit.rawValue, key.transmittedUnit.rawValue, key.kind.rawValue,
            key.characteristic.map(characteristicText), key.decoder, key.device, key.index, key.comparator?.rawValue,
        ]
        let id: Int64
        if let existing = try Int64.fetchOne(db, sql: Self.seriesLookupSQL, arguments: arguments) {
            id = existing
        } else {
            try db.execute(
                sql: """
                    INSERT INTO sampleSeries (
                        unit, transmittedUnit, sourceKind, characteristic, decoder, deviceID, sampleIndex, comparator
                    ) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: arguments
            )
            id = db.lastInsertedRowID
        }
        memory.series[key] = id
        return id
    }

    private func routeID(_ route: SampleRoute) throws -> Int64 {
        if let last = memory.lastRoute, last.0 == route { return last.1 }
        let id: Int64
        if let known = memory.routes[route] {
            id = known
        } else {
            id = try SampleTable.routeID(db, route)
            memory.routes[route] = id
        }
        memory.lastRoute = (route, id)
        return id
    }

    private func metadataID(_ json: String) throws -> Int64 {
        if let known = memory.metadataIDs[json] { return known }
        let id: Int64
        if let existing = try Int64.fetchOne(db, sql: "SELECT id FROM sampleMetadata WHERE json = ?", arguments: [json])
        {
            id = existing
        } else {
            try db.execute(sql: "INSERT INTO sampleMetadata (json) VALUES (?)", arguments: [json])
            id = db.lastInsertedRowID
        }
        if memory.metadataIDs.count >= 4096 { memory.metadataIDs.removeAll(keepingCapacity: true) }
        memory.metadataIDs[json] = id
        return id
    }

    /// The metadata's interned id; consecutive samples usually carry the same dictionary, so it is encoded once.
    private func metadataID(_ metadata: [String: String]) throws -> Int64? {
        guard !metadata.isEmpty else { return nil }
        if let last = memory.lastMetadata, last.0 == metadata { return last.1 }
        let id = try metadataID(SampleRecord.encodeMetadata(metadata))
        memory.lastMetadata = (metadata, id)
        return id
    }

    /// The origin row of a sample: the previous sample's when it came from the same notification (same payload,
    /// metadata and recording time), else a new one.
    private func originID(payload: [UInt8], metadata: [String: String], recordedAt: Int64) throws -> Int64 {
        let metadata = try metadataID(metadata)
        if let lastOrigin, lastOrigin.recordedAt == recordedAt, lastOrigin.metadata == metadata,
            lastOrigin.payload == payload
        {
            return lastOrigin.id
        }
        let id = try newOriginID(payload: payload, metadata: metadata, recordedAt: recordedAt)
        lastOrigin = (payload, metadata, recordedAt, id)
        return id
    }

    /// Writes an origin row with the next id, noting its recording time in `sampleBatch` when it differs from
    /// the batch before it.
    private func newOriginID(payload: [UInt8], metadata: Int64?, recordedAt: Int64) throws -> Int64 {
        var next: (id: Int64, batchRecordedAt: Int64?)
        if let nextOrigin = memory.rows?.nextOrigin {
            next = nextOrigin
        } else {
            let id = (try Int64.fetchOne(db, sql: "SELECT max(id) FROM sampleOrigin") ?? 0) + 1
            // Batches noted for origins that no longer exist (deleted at the end) would claim the new ones.
            try db.execute(sql: "DELETE FROM sampleBatch WHERE firstOrigin >= ?", arguments: [id])
            let governing = try Int64.fetchOne(
                db,
                sql: "SELECT recordedAt FROM sampleBatch ORDER BY firstOrigin DESC LIMIT 1"
            )
            next = (id, governing)
        }
        if next.batchRecordedAt != recordedAt {
            try db.execute(
                sql: "INSERT OR REPLACE INTO sampleBatch (firstOrigin, recordedAt) VALUES (?, ?)",
                arguments: [next.id, recordedAt]
            )
        }
        let handle = insertOrigin.sqliteStatement
        sqlite3_reset(handle)
        sqlite3_bind_int64(handle, 1, next.id)
        payload.withUnsafeBytes { bytes in
            _ = sqlite3_bind_blob(handle, 2, bytes.baseAddress, Int32(bytes.count), sqliteTransient)
        }
        if let metadata { sqlite3_bind_int64(handle, 3, metadata) } else { sqlite3_bind_null(handle, 3) }
        let code = sqlite3_step(handle)
        guard code == SQLITE_DONE else {
            let message = String(cString: sqlite3_errmsg(db.sqliteConnection))
            sqlite3_reset(handle)
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: insertOrigin.sql)
        }
        memory.rows?.nextOrigin = (next.id + 1, recordedAt)
        return next.id
    }

    /// The characteristic's text form, cached for the run of samples from one characteristic.
    private func characteristicText(_ uuid: BluetoothUUID) -> String {
        if let last = memory.lastCharacteristic, last.0 == uuid { return last.1 }
        let text = uuid.description
        memory.lastCharacteristic = (uuid, text)
        return text
    }

    private func bind(_ handle: OpaquePointer, _ index: Int32, _ text: String?) {
        guard var text else {
            sqlite3_bind_null(handle, index)
            return
        }
        text.withUTF8 { utf8 in
            _ = sqlite3_bind_text(
                handle,
                index,
                utf8.baseAddress.map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) },
                Int32(utf8.count),
                sqliteTransient
            )
        }
    }
}

/// `SQLITE_TRANSIENT`: SQLite copies the bound bytes before the call returns.
private let sqliteTransient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

extension SampleRecord {
    static func encodeDevice(_ device: DeviceIdentity) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return (try? encoder.encode(device)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    /// A JSON object with sorted keys, written by hand (a `JSONEncoder` per row cost more than the insert).
    static func encodeMetadata(_ metadata: [String: String]) -> String {
        var json = "{"
        for (index, key) in metadata.keys.sorted().enumerated() {
            if index > 0 { json += "," }
            appendJSONString(key, to: &json)
            json += ":"
            appendJSONString(metadata[key]!, to: &json)
        }
        return json + "}"
    }

    private static func appendJSONString(_ text: String, to json: inout String) {
        JSONValue.writeString(text, into: &json)
    }

    /// The stored sample, rebuilt exactly (its idempotency key comes out the same), carrying the stored id.
    func storedSample() throws(CareStoreError) -> StoredSample {
        var cache = DecodingCache()
        return try storedSample(cache: &cache)
    }

    /// Decoded device identities and metadata by their JSON text, for rebuilding many rows.
    struct DecodingCache {
        var devices: [String: DeviceIdentity] = [:]
        var metadata: [String: [String: String]] = [:]
        /// The last characteristic and units parsed (the rows of one series repeat the same text).
        var characteristic: (String, BluetoothUUID?)?
        var unit: (String, HealthUnit)?
        var transmittedUnit: (String, HealthUnit)?
    }

    /// ``storedSample()`` for many rows: each distinct device or metadata JSON text is decoded once.
    func storedSample(cache: inout DecodingCache) throws(CareStoreError) -> StoredSample {
        guard let type = QuantityType(rawValue: type), let kind = SampleSource.Kind(rawValue: sourceKind) else {
            throw CareStoreError(.corruptRow, "sample \(id): unknown type '\(type)' or source '\(sourceKind)'")
        }
        var deviceIdentity: DeviceIdentity?
        if let device {
            if let known = cache.devices[device] {
                deviceIdentity = known
            } else {
                deviceIdentity = try? JSONDecoder().decode(DeviceIdentity.self, from: Data(device.utf8))
                if let deviceIdentity { cache.devices[device] = deviceIdentity }
            }
        }
        var meta: [String: String] = [:]
        if let metadata {
            if let known = cache.metadata[metadata] {
                meta = known
            } else {
                meta = (try? JSONDecoder().decode([String: String].self, from: Data(metadata.utf8))) ?? [:]
                // Bounded: free-text notes make many distinct values.
                if cache.metadata.count >= 1024 { cache.metadata.removeAll(keepingCapacity: true) }
                cache.metadata[metadata] = meta
            }
        }
        let bytes = payload
        var characteristicUUID: BluetoothUUID?
        if let characteristic {
            if let last = cache.characteristic, last.0 == characteristic {
                characteristicUUID = last.1
            } else {
                characteristicUUID = BluetoothUUID(characteristic)
                cache.characteristic = (characteristic, characteristicUUID)
            }
        }
        func parse(_ text: String, _ last: inout (String, HealthUnit)?) -> HealthUnit {
            if let last, last.0 == text { return last.1 }
            let unit = HealthUnit(rawValue: text)
            last = (text, unit)
            return unit
        }
        let sample = QuantitySample(
            type: type,
            value: value,
            unit: parse(unit, &cache.unit),
            start: start,
            end: end,
            transmittedValue: transmittedValue,
            transmittedUnit: parse(transmittedUnit, &cache.transmittedUnit),
            source: SampleSource(
                kind: kind,
                characteristic: characteristicUUID,
                decoder: decoder,
                device: deviceIdentity
            ),
            deviceTime: deviceTime.flatMap(Self.parseDeviceTime),
            receivedAt: receivedAt,
            clockOffset: clockOffset,
            rawPayload: bytes,
            index: sampleIndex,
            metadata: meta,
            comparator: comparator.flatMap(ValueComparator.init(rawValue:)),
            quarantineReason: quarantineReason,
            id: id
        )
        return StoredSample(
            sample: sample,
            recordedAt: recordedAt,
            deletedDate: deletedDate,
            releaseReason: releaseReason,
            patientID: patientID,
            inboxReason: inboxReason,
            routedBy: routedBy
        )
    }

    /// Reads `YYYY-MM-DDTHH:MM:SS` back into a device `DateTime`.
    static func parseDeviceTime(_ text: String) -> DateTime? {
        DateTime(checking: text.split(whereSeparator: { $0 == "-" || $0 == "T" || $0 == ":" }).compactMap { Int($0) })
    }
}
