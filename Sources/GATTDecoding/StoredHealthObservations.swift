public import BridgeFoundation

/// Stored Health Observations (0x2BDD) of the Generic Health Sensor service: observations the sensor kept,
/// sent in answer to a Record Access Control Point request (op code 01 Report Stored Records, filter type 01
/// record number, uint32).
///
/// Layout: Segmentation Header (uint8, ``HealthObservationSegmentation``), Record Number (uint32), then one
/// Health Observation Body (``HealthObservation``). Decoded only whole: the pipeline joins segments first.
/// - SeeAlso: Generic Health Sensor Service 1.0 §3 (Stored Health Observations), §3 (RACP).
public struct StoredHealthObservations: GATTPayload, Hashable {
    public static let identifier = "stored-health-observations"
    public static let name = "Stored Health Observations"
    public static let source = PayloadSource.characteristic(.storedHealthObservations)

    public var segmentationHeader: UInt8
    /// The sensor's number for this record; RACP filters by it.
    public var recordNumber: UInt32
    public var observation: HealthObservation

    public init(from reader: inout ByteReader) throws(GATTDecodingError) {
        segmentationHeader = try HealthObservationSegmentation.readWhole(&reader)
        recordNumber = try reader.read(UInt32.self, field: "Record Number")
        observation = try HealthObservation(from: &reader)
        if reader.remaining != 0 {
            throw reader.error(.unexpectedLength(expected: "\(reader.offset) octets", actual: reader.bytes.count))
        }
    }

    public var fields: JSONObject {
        [
            "segmentationHeader": .int(Int(segmentationHeader)), "recordNumber": .int(Int(recordNumber)),
            "observation": .object(observation.fields),
        ]
    }
}

// MARK: - MultiPacketPayload

extension StoredHealthObservations: MultiPacketPayload {
    public static func continues(_ bytes: [UInt8]) -> Bool { HealthObservationSegmentation.continues(bytes) }

    public static func merge(_ first: [UInt8], _ second: [UInt8]) throws(GATTDecodingError) -> [UInt8] {
        try HealthObservationSegmentation.merge(first, second, context: displayName)
    }

    public static func complete(_ bytes: [UInt8]) -> [UInt8] { HealthObservationSegmentation.complete(bytes) }
}
