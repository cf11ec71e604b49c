import BridgeCore
public import Foundation
import GATTDecoding

/// Writes a deterministic heart-rate strap session: advertisement, connect, Device Information reads, then
/// one Heart Rate Measurement notification per second with the RR intervals of the beats that ended in
/// that second (flags `16`: sensor contact detected, RR present, uint8 heart rate; `06` in a second without a beat).
///
/// Used for `Recordings/heart-rate-strap-20-minutes.jsonl` and by the replay benchmark (24 hours). The same
/// arguments always give the same bytes.
public struct SyntheticHeartRateSession: Sendable {
    public var device: String
    public var recordedAt: Date
    public var timeZone: TimeZone
    /// Number of notifications (one per second).
    public var notifications: Int
    public var seed: UInt64

    public init(device: String, recordedAt: Date, timeZone: TimeZone, notifications: Int, seed: UInt64 = 2026) {
        self.device = device
        self.recordedAt = recordedAt
        self.timeZone = timeZone
        self.notifications = notifications
        self.seed = seed
    }

    /// Writes the session to `path`.
    /// - Throws: ``RecordingError`` when the file cannot be written.
    public func write(to path: String, notes: String? = nil) throws(RecordingError) {
        var extra = JSONObject()
        extra["adapter"] = .string("hci0")
        if let notes { extra["notes"] = .string(notes) }
        let writer = try RecordingWriter(
            path: path,
            header: RecordingHeader(recordedAt: recordedAt, timeZone: timeZone, extra: extra)
        )
        func at(_ t: Double) -> Date { recordedAt.addingTimeInterval(t) }
        try writer.write(
            TransportEvent(
                time: at(0.3),
                device: device,
                kind: .advertisement(Advertisement(name: "Device 1", rssi: -52, serviceUUIDs: [.heartRateService]))
            )
        )
        try writer.write(TransportEvent(time: at(0.8), device: device, kind: .connected))
        try writer.write(
            TransportEvent(
                time: at(1.0),
                device: device,
                kind: .servicesDiscovered([
                    .heartRateService: [.heartRateMeasurement, .bodySensorLocation],
                    .deviceInformationService: [.manufacturerNameString, .modelNumberString, .serialNumberString],
                ])
            )
        )
        for (offset, (uuid, text)) in [
            (BluetoothUUID.manufacturerNameString, "Acme Health"), (.modelNumberString, "HR-10"),
            (.serialNumberString, "SN6180"),
        ].enumerated() {
            try writer.write(
                TransportEvent(
                    time: at(1.1 + Double(offset) / 10),
                    device: device,
                    kind: .value(CharacteristicValue(characteristic: uuid, bytes: Array(text.utf8), delivery: .read))
                )
            )
        }
        try writer.write(
            TransportEvent(
                time: at(1.4),
                device: device,
                kind: .value(CharacteristicValue(characteristic: .bodySensorLocation, bytes: [0x01], delivery: .read))
            ),
            note: "Body Sensor Location: chest"
        )
        var random = seed
        func noise() -> Double {  // uniform in [-1, 1), PCG-style LCG
            random = random &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(random >> 11) / Double(1 << 52) - 1
        }
        let start = 2.0
        var beat = start - 0.4  // time of the last beat
        var rate = 68.0
        for second in 0..<notifications {
            let t = start + Double(second)
            var rr: [UInt16] = []
            while true {
                let phase = 2 * Double.pi * (beat - start) / 300
                rate = 68 + 8 * sin(phase) + 3 * noise()
                let interval = 60 / rate
                guard beat + interval <= t else { break }
                beat += interval
                rr.append(UInt16((interval * 1024).rounded()))
            }
            // Flags 16: contact detected + RR present; 06 when no beat ended in this second.
            var bytes: [UInt8] = [rr.isEmpty ? 0x06 : 0x16, UInt8(rate.rounded())]
            for value in rr.suffix(9) {
                bytes.append(UInt8(value & 0xFF))
                bytes.append(UInt8(value >> 8))
            }
            try writer.write(
                TransportEvent(
                    time: at(t),
                    device: device,
                    kind: .value(
                        CharacteristicValue(
                            characteristic: .heartRateMeasurement,
                            bytes: bytes,
                            delivery: .notification
                        )
                    )
                )
            )
        }
        try writer.write(
            TransportEvent(
                time: at(start + Double(notifications) + 0.5),
                device: device,
                kind: .disconnected(reason: "remote")
            )
        )
        try writer.close()
    }
}
