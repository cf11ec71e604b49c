import BridgeCore
import BridgeFoundation
import Foundation
import GATTDecoding
import GRDB
import GRDBSQLite

/// The hot ingest path: one prepared `INSERT OR IGNORE` whose columns are bound through the SQLite C API (no
/// per-row argument arrays), and the `device` row of each identity looked up once per batch.
final class SampleInserter {
    static let insertSQL = """
        INSERT OR IGNORE INTO sample (
            id, type, value, unit, start, "end", transmittedValue, transmittedUnit, sourceKind, characteristic,
            decoder, deviceID, deviceTime, receivedAt, clockOffset, payload, sampleIndex, metadata, recordedAt,
            comparator, quarantineReason, patientID, inboxReason, routedBy
        ) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """

    private let db: Database
    private let statement: Statement
    private let findDevice: Statement
    private let insertDevice: Statement
    private let findMetadata: Statement
    private let updateMetadata: Statement
    private var devices: [DeviceIdentity: Int64] = [:]
    private var lastDevice: (DeviceIdentity, Int64)?
    private var lastMetadata: ([String: String], String)?
    private var lastCharacteristic: (BluetoothUUID, String)?

    init(db: Database) throws {
        self.db = db
        statement = try db.makeStatement(sql: Self.insertSQL)
        findDevice = try db.cachedStatement(sql: "SELECT id FROM device WHERE identity = ?")
        insertDevice = try db.cachedStatement(sql: "INSERT INTO device (identity) VALUES (?)")
        findMetadata = try db.cachedStatement(sql: "SELECT metadata FROM sample WHERE id = ?")
        updateMetadata = try db.cachedStatement(sql: "UPDATE sample SET metadata = ? WHERE id = ?")
    }

    /// The `device` row of `identity`, created on first use.
    func deviceID(_ identity: DeviceIdentity) throws -> Int64 {
        if let lastDevice, lastDevice.0 == identity { return lastDevice.1 }
        let id: Int64
        if let known = devices[identity] {
            id = known
        } else {
            let json = SampleRecord.encodeDevice(identity)
            findDevice.setUncheckedArguments([json])
            if let existing = try Int64.fetchOne(findDevice) {
                id = existing
            } else {
                insertDevice.setUncheckedArguments([json])
                try insertDevice.execute()
                id = db.lastInsertedRowID
            }
            devices[identity] = id
        }
        lastDevice = (identity, id)
        return id
    }

    /// Inserts one sample row.
    /// - Returns: false when a row with this id already exists (the same reading, stored before).
    func insert(
        _ sample: QuantitySample,
        id: UUID,
        recordedAt: Double,
        route: SampleRoute = .implicit
    ) throws -> Bool {
        let source = sample.source
        let device = try source.device.map(deviceID)
        let handle = statement.sqliteStatement
        sqlite3_reset(handle)
        withUnsafeBytes(of: id.uuid) { bytes in
            _ = sqlite3_bind_blob(handle, 1, bytes.baseAddress, 16, sqliteTransient)
        }
        bind(handle, 2, sample.type.rawValue)
        sqlite3_bind_double(handle, 3, sample.value)
        bind(handle, 4, sample.unit.rawValue)
        sqlite3_bind_double(handle, 5, sample.start.timeIntervalSince1970)
        sqlite3_bind_double(handle, 6, sample.end.timeIntervalSince1970)
        sqlite3_bind_double(handle, 7, sample.transmittedValue)
        bind(handle, 8, sample.transmittedUnit.rawValue)
        bind(handle, 9, source.kind.rawValue)
        bind(handle, 10, source.characteristic.map(characteristicText))
        bind(handle, 11, source.decoder)
        if let device { sqlite3_bind_int64(handle, 12, device) } else { sqlite3_bind_null(handle, 12) }
        bind(handle, 13, sample.deviceTime?.description)
        sqlite3_bind_double(handle, 14, sample.receivedAt.timeIntervalSince1970)
        if let offset = sample.clockOffset {
            sqlite3_bind_double(handle, 15, offset)
        } else {
            sqlite3_bind_null(handle, 15)
        }
        if sample.rawPayload.isEmpty {
            // An empty blob, not NULL, for manual entries.
            sqlite3_bind_zeroblob(handle, 16, 0)
        } else {
            sample.rawPayload.withUnsafeBytes { bytes in
                _ = sqlite3_bind_blob(handle, 16, bytes.baseAddress, Int32(bytes.count), sqliteTransient)
            }
        }
        sqlite3_bind_int64(handle, 17, Int64(sample.index))
        bind(handle, 18, metadataJSON(sample.metadata))
        sqlite3_bind_double(handle, 19, recordedAt)
        bind(handle, 20, sample.comparator?.rawValue)
        bind(handle, 21, sample.quarantineReason)
        bind(handle, 22, route.patientID)
        bind(handle, 23, route.inboxReason)
        bind(handle, 24, route.routedBy)
        let code = sqlite3_step(handle)
        guard code == SQLITE_DONE else {
            let message = String(cString: sqlite3_errmsg(db.sqliteConnection))
            sqlite3_reset(handle)
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: Self.insertSQL)
        }
        guard sqlite3_changes(db.sqliteConnection) > 0 else {
            if !sample.metadata.isEmpty { try addMissingMetadata(sample.metadata, id: id) }
            return false
        }
        return true
    }

    /// A repeat of a stored reading (a record downloaded again after an interrupted download) adds the metadata
    /// keys the stored copy lacks: a glucose context that came only with the repeat stays attached to its
    /// measurement across sessions. Nothing already stored changes: value, times and existing keys stay.
    private func addMissingMetadata(_ metadata: [String: String], id: UUID) throws {
        let blob = withUnsafeBytes(of: id.uuid) { Data($0) }
        findMetadata.setUncheckedArguments([blob])
        guard let row = try Row.fetchOne(findMetadata) else { return }
        let storedText: String? = row[0]
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
        updateMetadata.setUncheckedArguments([SampleRecord.encodeMetadata(stored), blob])
        try updateMetadata.execute()
    }

    /// The characteristic's text form, cached for the run of samples from one characteristic.
    private func characteristicText(_ uuid: BluetoothUUID) -> String {
        if let lastCharacteristic, lastCharacteristic.0 == uuid { return lastCharacteristic.1 }
        let text = uuid.description
        lastCharacteristic = (uuid, text)
        return text
    }

    /// Metadata as JSON; consecutive samples usually carry the same dictionary, so it is encoded once.
    private func metadataJSON(_ metadata: [String: String]) -> String? {
        guard !metadata.isEmpty else { return nil }
        if let lastMetadata, lastMetadata.0 == metadata { return lastMetadata.1 }
        let json = SampleRecord.encodeMetadata(metadata)
        lastMetadata = (metadata, json)
        return json
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

    /// The stored sample, rebuilt exactly (its id and idempotency key come out the same).
    func storedSample() throws(CareStoreError) -> StoredSample {
        var cache = DecodingCache()
        return try storedSample(cache: &cache)
    }

    /// Decoded device identities and metadata by their JSON text, for rebuilding many rows.
    struct DecodingCache {
        var devices: [String: DeviceIdentity] = [:]
        var metadata: [String: [String: String]] = [:]
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
        let sample = QuantitySample(
            type: type,
            value: value,
            unit: HealthUnit(rawValue: unit),
            start: start,
            end: end,
            transmittedValue: transmittedValue,
            transmittedUnit: HealthUnit(rawValue: transmittedUnit),
            source: SampleSource(
                kind: kind,
                characteristic: characteristic.flatMap(BluetoothUUID.init),
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
            quarantineReason: quarantineReason
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
        let parts = text.split(whereSeparator: { $0 == "-" || $0 == "T" || $0 == ":" }).compactMap { Int($0) }
        guard parts.count == 6 else { return nil }
        return DateTime(
            year: parts[0],
            month: parts[1],
            day: parts[2],
            hours: parts[3],
            minutes: parts[4],
            seconds: parts[5]
        )
    }
}
