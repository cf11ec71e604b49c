public import BridgeFoundation

/// Live Health Observations (0x2B8B) of the Generic Health Sensor service: observations as they are taken,
/// notified or indicated once the collector has written Start Send Live Observations (0x01) to the GHS Control
/// Point.
///
/// Layout: Segmentation Header (uint8, ``HealthObservationSegmentation``), then one Health Observation Body
/// (``HealthObservation``). Decoded only whole: the pipeline joins segments first.
/// - SeeAlso: Generic Health Sensor Service 1.0 §3 (Live Health Observations).
public struct LiveHealthObservations: GATTPayload, Hashable {
    public static let identifier = "live-health-observations"
    public static let name = "Live Health Observations"
    public static let source = PayloadSource.characteristic(.liveHealthObservations)

    public var segmentationHeader: UInt8
    public var observation: HealthObservation

    public init(from reader: inout ByteReader) throws(GATTDecodingError) {
        segmentationHeader = try HealthObservationSegmentation.readWhole(&reader)
        observation = try HealthObservation(from: &reader)
        if reader.remaining != 0 {
            throw reader.error(.unexpectedLength(expected: "\(reader.offset) octets", actual: reader.bytes.count))
        }
    }

    public var fields: JSONObject {
        ["segmentationHeader": .int(Int(segmentationHeader)), "observation": .object(observation.fields)]
    }
}

// MARK: - MultiPacketPayload

extension LiveHealthObservations: MultiPacketPayload {
    public static func continues(_ bytes: [UInt8]) -> Bool { HealthObservationSegmentation.continues(bytes) }

    public static func merge(_ first: [UInt8], _ second: [UInt8]) throws(GATTDecodingError) -> [UInt8] {
        try HealthObservationSegmentation.merge(first, second, context: displayName)
    }

    public static func complete(_ bytes: [UInt8]) -> [UInt8] { HealthObservationSegmentation.complete(bytes) }
}
