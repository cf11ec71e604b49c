import BridgeCore
import CareHub
import Foundation

/// One simulated bridge's day of readings for the hub benchmark, as the batches its ``HubSyncChannel`` would post:
/// each reading a ``SyncMessage/sample(_:id:sequence:patient:zone:)`` with the bridge's outbox sequence (1, 2, …),
/// `batchSize` to a batch, oldest first.
///
/// A spot bridge has 15 readings: a morning weight, blood pressure (systolic, diastolic, pulse) morning and
/// evening, glucose before each of four meals, SpO₂ and temperature twice. A heart-rate bridge has one heart rate a
/// second for `heartRateSeconds` (86,400: a day), as a chest strap streaming into the bridge writes them. Batches
/// are built when asked for, so a day of 1 Hz heart rate is never all in memory at once.
struct SimulatedBridgeDay: Sendable {
    /// The spot readings of a day: type, hour, minute.
    static let spotSchedule: [(QuantityType, Int, Int)] = [
        (.bodyMass, 7, 5),
        (.bloodPressureSystolic, 7, 10), (.bloodPressureDiastolic, 7, 10), (.heartRate, 7, 10),
        (.bloodGlucose, 7, 30), (.bloodGlucose, 12, 15), (.bloodGlucose, 18, 30), (.bloodGlucose, 22, 0),
        (.oxygenSaturation, 8, 0), (.oxygenSaturation, 20, 0),
        (.bodyTemperature, 8, 5), (.bodyTemperature, 20, 5),
        (.bloodPressureSystolic, 19, 45), (.bloodPressureDiastolic, 19, 45), (.heartRate, 19, 45),
    ]

    var bridge: String
    var patient: String
    /// Seconds of 1 Hz heart rate; 0: a spot bridge.
    var heartRateSeconds: Int
    var batchSize: Int
    /// Midnight of the day, in `zone`.
    var day: Date
    var zone: TimeZone
    /// Varies the values from bridge to bridge.
    var seed: Int

    /// Readings the day holds.
    var count: Int { heartRateSeconds > 0 ? heartRateSeconds : Self.spotSchedule.count }
    /// Batches it goes up in.
    var batchCount: Int { (count + batchSize - 1) / batchSize }

    /// The `index`th batch (0-based) as the bridge's channel posts it.
    func batch(_ index: Int) -> SyncBatch {
        let first = index * batchSize
        let last = min(first + batchSize, count)
        let messages = (first..<last).map { position in
            let sample = reading(position)
            return SyncMessage.sample(
                sample,
                id: sample.id,
                sequence: Int64(position + 1),
                patient: patient,
                zone: zone
            )
        }
        return SyncBatch(messages: messages, pending: count - last, changesAfter: 0)
    }

    /// The `position`th reading of the day.
    func reading(_ position: Int) -> QuantitySample {
        if heartRateSeconds > 0 {
            let at = day.addingTimeInterval(Double(position))
            let value = Double(58 + (position / 30 + seed) % 40)
            return sample(.heartRate, value, at: at, device: "strap", payload: [0x00, UInt8(value)])
        }
        let (type, hour, minute) = Self.spotSchedule[position]
        let at = day.addingTimeInterval(Double(hour * 3600 + minute * 60))
        let wobble = Double((seed * 7 + position * 3) % 11)
        let (value, device): (Double, String) =
            switch type {
            case .bodyMass: (62 + Double(seed % 40) + wobble / 10, "scale")
            case .bloodPressureSystolic: (112 + wobble * 2, "cuff")
            case .bloodPressureDiastolic: (70 + wobble, "cuff")
            case .heartRate: (60 + wobble, "cuff")
            case .bloodGlucose: (90 + wobble * 5, "meter")
            case .oxygenSaturation: (94 + wobble / 2, "oximeter")
            default: (36.4 + wobble / 20, "thermometer")
            }
        return sample(type, value, at: at, device: device, payload: [UInt8(position), UInt8(truncatingIfNeeded: seed)])
    }

    private func sample(
        _ type: QuantityType,
        _ value: Double,
        at time: Date,
        device: String,
        payload: [UInt8]
    )
        -> QuantitySample
    {
        QuantitySample(
            type: type,
            value: value,
            unit: type.canonicalUnit,
            start: time,
            source: SampleSource(
                kind: .device,
                decoder: "bench",
                device: DeviceIdentity(address: "\(bridge)-\(device)", name: device)
            ),
            receivedAt: time,
            rawPayload: payload
        )
    }
}
