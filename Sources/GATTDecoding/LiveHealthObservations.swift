import BridgeFoundation

/// Live Health Observations (0x2B8B) of the Generic Health Sensor service: observations as they are taken,
/// notified or indicated once the collector has written Start Send Live Observations (0x01) to the GHS Control
/// Point. Layout and segmentation: ``HealthObservations``.
/// - SeeAlso: Generic Health Sensor Service 1.0 §3 (Live Health Observations).
public struct LiveHealthObservations: HealthObservations, Hashable {
    public static let identifier = "live-health-observations"
    public static let name = "Live Health Observations"
    public static let source = PayloadSource.characteristic(.liveHealthObservations)

    public var segmentationHeader: UInt8
    public var observation: HealthObservation
    public var record: UInt32? { nil }

    public init(from reader: inout ByteReader) throws(GATTDecodingError) {
        (segmentationHeader, _, observation) = try Self.read(&reader, numbered: false)
    }
}
