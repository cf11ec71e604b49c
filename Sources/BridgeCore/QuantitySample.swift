public import Foundation
public import GATTDecoding

/// One measured quantity, normalised to its type's canonical unit, with the value as the device sent it.
///
/// The ``id`` is derived from the ``idempotencyKey``, so the same reading decoded twice has the same id and
/// storing it twice changes nothing.
public struct QuantitySample: Sendable, Hashable {
    public var type: QuantityType
    /// Value in ``unit`` (always `type.canonicalUnit` for samples CareBridge makes).
    public var value: Double
    public var unit: HealthUnit
    public var start: Date
    public var end: Date
    /// The value and unit as transmitted, before normalisation.
    public var transmittedValue: Double
    public var transmittedUnit: HealthUnit
    public var source: SampleSource
    /// The device's own wall-clock stamp (no zone), when the payload carried one.
    public var deviceTime: DateTime?
    /// When the bridge received the payload (or the reading was entered).
    public var receivedAt: Date
    /// Seconds added to the device's clock when it was evidently wrong (set by the pipeline).
    public var clockOffset: Double?
    /// The payload bytes the sample was decoded from (empty for manual entries).
    public var rawPayload: [UInt8]
    /// Position among samples of the same type from one payload (RR intervals), 0 otherwise.
    public var index: Int
    /// Context a reader may want: user ID, measurement site, status bits, note.
    public var metadata: [String: String]

    public init(
        type: QuantityType,
        value: Double,
        unit: HealthUnit,
        start: Date,
        end: Date? = nil,
        transmittedValue: Double? = nil,
        transmittedUnit: HealthUnit? = nil,
        source: SampleSource,
        deviceTime: DateTime? = nil,
        receivedAt: Date? = nil,
        clockOffset: Double? = nil,
        rawPayload: [UInt8] = [],
        index: Int = 0,
        metadata: [String: String] = [:]
    ) {
        self.type = type
        self.value = value
        self.unit = unit
        self.start = start
        self.end = end ?? start
        self.transmittedValue = transmittedValue ?? value
        self.transmittedUnit = transmittedUnit ?? unit
        self.source = source
        self.deviceTime = deviceTime
        self.receivedAt = receivedAt ?? start
        self.clockOffset = clockOffset
        self.rawPayload = rawPayload
        self.index = index
        self.metadata = metadata
    }

    /// The key that makes ingest idempotent.
    ///
    /// Device samples: source device + characteristic + device time (or receive time) + raw payload + type
    /// (+ index). Manual entries: type + value + unit + time.
    public var idempotencyKey: String {
        let typeKey = index == 0 ? type.rawValue : "\(type.rawValue)#\(index)"
        switch source.kind {
        case .manual:
            return "manual|\(typeKey)|\(transmittedValue)|\(transmittedUnit.rawValue)|\(Timestamp.utcKey(start))"
        case .device:
            let device = source.device?.key ?? "unknown"
            let characteristic = source.characteristic?.description ?? "-"
            let time = deviceTime.map { "device:\($0)" } ?? "received:\(Timestamp.utcKey(receivedAt))"
            return "device|\(device)|\(characteristic)|\(time)|\(Hex.string(rawPayload))|\(typeKey)"
        }
    }

    /// A stable UUID derived from the idempotency key (SHA-256, name-based layout).
    public var id: UUID { SHA256.uuid(for: idempotencyKey) }
}
