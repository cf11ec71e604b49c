public import BridgeCore
import BridgeFoundation
public import Foundation

extension SyncMessage {
    /// A sample as it goes up to the hub: kind `sample`, the sample's id (lowercase), the bridge's outbox
    /// sequence, and the sample as `samples --json` writes it (times in `zone`). ``HubSyncChannel`` sends these;
    /// the hub benchmark builds its batches with it too.
    /// - Parameters:
    ///   - sample: the reading.
    ///   - id: its id in the bridge's store.
    ///   - sequence: its outbox sequence on the bridge.
    ///   - patient: the patient it belongs to.
    ///   - zone: the zone its times are written in.
    public static func sample(
        _ sample: QuantitySample,
        id: UUID,
        sequence: Int64,
        patient: String,
        zone: TimeZone
    ) -> SyncMessage {
        SyncMessage(
            kind: .sample,
            id: id.uuidString.lowercased(),
            sequence: sequence,
            patient: patient,
            body: sample.json(in: zone)
        )
    }
}
