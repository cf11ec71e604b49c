import BridgeCore
import Foundation
import GATTDecoding
import GRDB

/// Devices repeat across a batch: encode each identity to JSON once.
struct DeviceEncodingCache {
    private var last: (DeviceIdentity, String)?

    mutating func json(_ device: DeviceIdentity?) -> String? {
        guard let device else { return nil }
        if let last, last.0 == device { return last.1 }
        let json = SampleRecord.encodeDevice(device)
        last = (device, json)
        return json
    }
}

extension SampleRecord {
    /// The columns of `sample`, in the order ``insertArguments(_:recordedAt:)`` binds them.
    static let insertSQL = """
        INSERT OR IGNORE INTO sample (
            id, idempotencyKey, type, value, unit, start, "end", transmittedValue, transmittedUnit, sourceKind,
            characteristic, decoder, deviceKey, device, deviceTime, receivedAt, clockOffset, payload, sampleIndex,
            metadata, recordedAt
        ) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """

    /// Arguments for ``insertSQL`` (the hot ingest path binds these directly instead of encoding a record).
    static func insertArguments(_ sample: QuantitySample, id: String, key: String, device json: String?, recordedAt: Date)
        -> StatementArguments
    {
        // Already `DatabaseValue`s: GRDB's generic conversion of concrete sequences goes through a key path.
        let values: [(any DatabaseValueConvertible)?] = [
            id.databaseValue,
            key.databaseValue,
            sample.type.rawValue.databaseValue,
            sample.value.databaseValue,
            sample.unit.rawValue.databaseValue,
            sample.start.timeIntervalSince1970.databaseValue,
            sample.end.timeIntervalSince1970.databaseValue,
            sample.transmittedValue.databaseValue,
            sample.transmittedUnit.rawValue.databaseValue,
            sample.source.kind.rawValue.databaseValue,
            sample.source.characteristic?.description.databaseValue ?? DatabaseValue.null,
            sample.source.decoder?.databaseValue ?? DatabaseValue.null,
            sample.source.device?.key.databaseValue ?? DatabaseValue.null,
            json?.databaseValue ?? DatabaseValue.null,
            sample.deviceTime?.description.databaseValue ?? DatabaseValue.null,
            sample.receivedAt.timeIntervalSince1970.databaseValue,
            sample.clockOffset?.databaseValue ?? DatabaseValue.null,
            Hex.string(sample.rawPayload).databaseValue,
            sample.index.databaseValue,
            sample.metadata.isEmpty ? DatabaseValue.null : Self.encodeMetadata(sample.metadata).databaseValue,
            recordedAt.timeIntervalSince1970.databaseValue,
        ]
        return StatementArguments(values)
    }

    static func encodeDevice(_ device: DeviceIdentity) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return (try? encoder.encode(device)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    static func encodeMetadata(_ metadata: [String: String]) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return (try? encoder.encode(metadata)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    /// The stored sample, rebuilt exactly (its id and idempotency key come out the same).
    func storedSample() throws(CareStoreError) -> StoredSample {
        guard let type = QuantityType(rawValue: type), let kind = SampleSource.Kind(rawValue: sourceKind) else {
            throw CareStoreError(.corruptRow, "sample \(id): unknown type '\(type)' or source '\(sourceKind)'")
        }
        var deviceIdentity: DeviceIdentity?
        if let device {
            deviceIdentity = try? JSONDecoder().decode(DeviceIdentity.self, from: Data(device.utf8))
        }
        var meta: [String: String] = [:]
        if let metadata {
            meta = (try? JSONDecoder().decode([String: String].self, from: Data(metadata.utf8))) ?? [:]
        }
        let bytes: [UInt8]
        do {
            bytes = try Hex.bytes(payload)
        } catch {
            throw CareStoreError(.corruptRow, "sample \(id): payload is not hex: \(error)")
        }
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
            metadata: meta
        )
        return StoredSample(sample: sample, recordedAt: recordedAt, deletedDate: deletedDate)
    }

    /// Reads `YYYY-MM-DDTHH:MM:SS` back into a device `DateTime`.
    static func parseDeviceTime(_ text: String) -> DateTime? {
        let parts = text.split(whereSeparator: { $0 == "-" || $0 == "T" || $0 == ":" }).compactMap { Int($0) }
        guard parts.count == 6 else { return nil }
        return DateTime(year: parts[0], month: parts[1], day: parts[2], hours: parts[3], minutes: parts[4], seconds: parts[5])
    }
}
