/// A stored record that carries the device's sequence number (Glucose Measurement and its Context): what the
/// pipeline needs to pair a measurement with the context that follows it, without reading bytes itself.
public protocol SequencedRecord: GATTPayload {
    /// The record's sequence number; a measurement and its context share it.
    var sequenceNumber: UInt16 { get }
}

extension GlucoseMeasurement: SequencedRecord {}

extension GlucoseMeasurementContext: SequencedRecord {}
