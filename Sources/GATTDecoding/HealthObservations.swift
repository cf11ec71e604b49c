public import BridgeFoundation

/// The Generic Health Sensor service's two observation characteristics, Live Health Observations (0x2B8B) and Stored
/// Health Observations (0x2BDD): the same layout but for the stored one's record number, segmented the same way, and
/// read into samples by one path.
///
/// Layout: Segmentation Header (uint8, ``HealthObservationSegmentation``), the Record Number (uint32, stored
/// observations only), then one Health Observation Body (``HealthObservation``). Decoded only whole: the pipeline
/// joins segments first.
/// - SeeAlso: Generic Health Sensor Service 1.0 §3 (Live Health Observations, Stored Health Observations).
public protocol HealthObservations: MultiPacketPayload {
    var segmentationHeader: UInt8 { get }
    /// The sensor's number for the record (stored observations; RACP filters by it); nil for a live observation.
    var record: UInt32? { get }
    var observation: HealthObservation { get }
}

extension HealthObservations {
    /// Reads the shared layout: the header, the record number when `numbered`, the body, and nothing after it.
    /// - Throws: a positioned ``GATTDecodingError``.
    static func read(
        _ reader: inout ByteReader,
        numbered: Bool
    ) throws(GATTDecodingError) -> (header: UInt8, record: UInt32?, observation: HealthObservation) {
        let header = try HealthObservationSegmentation.readWhole(&reader)
        let record = numbered ? try reader.read(UInt32.self, field: "Record Number") : nil
        let observation = try HealthObservation(from: &reader)
        if reader.remaining != 0 {
            throw reader.error(.unexpectedLength(expected: "\(reader.offset) octets", actual: reader.bytes.count))
        }
        return (header, record, observation)
    }

    public var fields: JSONObject {
        var fields: JSONObject = ["segmentationHeader": .int(Int(segmentationHeader))]
        if let record { fields["recordNumber"] = .int(Int(record)) }
        fields["observation"] = .object(observation.fields)
        return fields
    }

    public static func continues(_ bytes: [UInt8]) -> Bool { HealthObservationSegmentation.continues(bytes) }

    public static func merge(_ first: [UInt8], _ second: [UInt8]) throws(GATTDecodingError) -> [UInt8] {
        try HealthObservationSegmentation.merge(first, second, context: displayName)
    }

    public static func complete(_ bytes: [UInt8]) -> [UInt8] { HealthObservationSegmentation.complete(bytes) }
}
