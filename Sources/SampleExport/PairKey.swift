public import BridgeCore
import BridgeFoundation
import Foundation

/// What makes a systolic and a diastolic sample halves of one reading: the same source, device, characteristic,
/// time and payload (the FHIR panel, the care report's `164/98 mmHg`).
public struct PairKey: Hashable, Sendable {
    var kind: SampleSource.Kind
    var device: String?
    var characteristic: String?
    var start: Date
    var end: Date
    var payload: [UInt8]

    public init(_ sample: QuantitySample) {
        kind = sample.source.kind
        device = sample.source.device?.key
        characteristic = sample.source.characteristic?.description
        start = sample.start
        end = sample.end
        payload = sample.rawPayload
    }
}
