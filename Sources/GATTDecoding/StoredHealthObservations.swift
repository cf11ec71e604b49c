import BridgeFoundation

/// Stored Health Observations (0x2BDD) of the Generic Health Sensor service: observations the sensor kept,
/// sent in answer to a Record Access Control Point request (op code 01 Report Stored Records, filter type 01
/// record number, uint32). Layout and segmentation: ``HealthObservations`` (with the Record Number).
/// - SeeAlso: Generic Health Sensor Service 1.0 §3 (Stored Health Observations), §3 (RACP).
public struct StoredHealthObservations: HealthObservations, Hashable {
    public static let identifier = "stored-health-observations"
    public static let name = "Stored Health Observations"
    public static let source = PayloadSource.characteristic(.storedHealthObservations)

    public var segmentationHeader: UInt8
    /// The sensor's number for this record; RACP filters by it.
    public var recordNumber: UInt32
    public var observation: HealthObservation
    public var record: UInt32? { recordNumber }

    public init(from reader: inout ByteReader) throws(GATTDecodingError) {
        let read = try Self.read(&reader, numbered: true)
        (segmentationHeader, observation) = (read.header, read.observation)
        recordNumber = read.record ?? 0
    }
}
