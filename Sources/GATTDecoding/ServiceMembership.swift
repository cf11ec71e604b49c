public import BridgeFoundation

/// Which SIG service a health characteristic belongs to, as the service specifications define it.
///
/// A capture without GATT discovery names its value handles by characteristic only (`import btsnoop --handle
/// 0x0012=2A9D`); the recording still needs the service, because device profiles claim a device by its
/// services. Most characteristics belong to exactly one service. The Record Access Control Point belongs to
/// every service with stored records (Glucose, Pulse Oximeter, Continuous Glucose Monitoring), so it takes the
/// service of the measurement characteristics named beside it.
public enum ServiceMembership {
    /// The one service each characteristic is defined in (Weight Scale, Body Composition, Health
    /// Thermometer, Heart Rate, Blood Pressure, Glucose, Pulse Oximeter, Continuous Glucose Monitoring, User Data, Device Information,
    /// Battery, Current Time).
    static let services: [UInt16: UInt16] = [
        0x2A9D: 0x181D, 0x2A9E: 0x181D,  // Weight Measurement, Weight Scale Feature
        0x2A9C: 0x181B, 0x2A9B: 0x181B,  // Body Composition Measurement, Feature
        0x2A1C: 0x1809, 0x2A1D: 0x1809, 0x2A1E: 0x1809, 0x2A21: 0x1809,  // Temperature, Type, Intermediate, Interval
        0x2A37: 0x180D, 0x2A38: 0x180D, 0x2A39: 0x180D,  // Heart Rate Measurement, Sensor Location, Control Point
        0x2A35: 0x1810, 0x2A36: 0x1810, 0x2A49: 0x1810,  // Blood Pressure Measurement, Cuff Pressure, Feature
        0x2A18: 0x1808, 0x2A34: 0x1808, 0x2A51: 0x1808,  // Glucose Measurement, Context, Feature
        0x2A5E: 0x1822, 0x2A5F: 0x1822, 0x2A60: 0x1822,  // PLX Spot-check, Continuous, Features
        0x2AA7: 0x181F, 0x2AA8: 0x181F, 0x2AA9: 0x181F, 0x2AAC: 0x181F,  // CGM Measurement, Feature, Status, SOCP
        0x2A9F: 0x181C, 0x2A99: 0x181C, 0x2A9A: 0x181C,  // User Control Point, Database Change Increment, Index
        0x2A23: 0x180A, 0x2A24: 0x180A, 0x2A25: 0x180A, 0x2A26: 0x180A,  // System ID, Model, Serial, Firmware
        0x2A27: 0x180A, 0x2A28: 0x180A, 0x2A29: 0x180A, 0x2A50: 0x180A,  // Hardware, Software, Manufacturer, PnP
        0x2A19: 0x180F,  // Battery Level
        0x2A2B: 0x1805,  // Current Time
    ]

    /// Services whose stored records are read through a Record Access Control Point.
    static let recordServices: Set<UInt16> = [0x1808, 0x1822, 0x181F]

    /// The service `characteristic` belongs to, or nil when the SIG defines it in no single service (a vendor
    /// UUID, or the Record Access Control Point with no measurement beside it to tell which).
    /// - Parameter neighbours: the other characteristics of the same device, which decide a shared one.
    public static func service(
        of characteristic: BluetoothUUID,
        neighbours: some Sequence<BluetoothUUID> = [BluetoothUUID]()
    ) -> BluetoothUUID? {
        guard let short = characteristic.shortValue else { return nil }
        if let service = services[short] { return BluetoothUUID(service) }
        guard characteristic == .recordAccessControlPoint else { return nil }
        let candidates = Set(neighbours.compactMap { $0.shortValue.flatMap { services[$0] } })
            .intersection(recordServices)
        return candidates.count == 1 ? candidates.first.map(BluetoothUUID.init) : nil
    }
}
