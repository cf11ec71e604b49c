import BridgeCore
import BridgeFoundation
import Foundation
import GATTDecoding

extension Advertisement {
    /// The advertisement a `Device1` object describes.
    ///
    /// `changed` (the properties of the `PropertiesChanged` that announced it) wins over the cached ones:
    /// `ManufacturerData` accumulates company ids on the object, so only what changed in this scan is fresh.
    init(device properties: ObjectMirror.Properties, changed: ObjectMirror.Properties = [:]) {
        func pick(_ key: String) -> DBusValue? { changed[key] ?? properties[key] }
        var serviceData: [BluetoothUUID: [UInt8]] = [:]
        for (key, value) in pick("ServiceData")?.stringKeyed ?? [:] {
            if let uuid = BluetoothUUID(key), let bytes = value.bytes { serviceData[uuid] = bytes }
        }
        var manufacturerData: [UInt16: [UInt8]] = [:]
        for entry in pick("ManufacturerData")?.entries ?? [] {
            if let id = entry.key.integer, let company = UInt16(exactly: id), let bytes = entry.value.bytes {
                manufacturerData[company] = bytes
            }
        }
        let rssi = pick("RSSI")?.integer.flatMap { $0 == 127 ? nil : $0 }
        self.init(
            name: pick("Name")?.string,
            rssi: rssi,
            serviceUUIDs: (pick("UUIDs")?.stringArray ?? []).compactMap(BluetoothUUID.init),
            serviceData: serviceData,
            manufacturerData: manufacturerData
        )
    }

    /// Property names whose change means the device was heard advertising.
    static let advertisedProperties: Set<String> = [
        "RSSI", "ServiceData", "ManufacturerData", "Name", "UUIDs", "TxPower", "AdvertisingData",
    ]
}

/// The Current Time characteristic (0x2A2B) value for a wall-clock time: Exact Time 256 + Adjust Reason.
enum CurrentTime {
    static let uuid = BluetoothUUID(0x2A2B)

    static func bytes(for date: Date, in zone: TimeZone) -> [UInt8] {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let c = calendar.dateComponents(
            [.year, .month, .day, .hour, .minute, .second, .weekday, .nanosecond],
            from: date
        )
        let year = UInt16(c.year ?? 2000)
        // Day of week: Monday = 1 … Sunday = 7 (Foundation: Sunday = 1).
        let weekday = UInt8(((c.weekday ?? 1) + 5) % 7 + 1)
        let fractions = UInt8(min(255, (c.nanosecond ?? 0) / 3_906_250))
        return [
            UInt8(year & 0xFF), UInt8(year >> 8), UInt8(c.month ?? 1), UInt8(c.day ?? 1),
            UInt8(c.hour ?? 0), UInt8(c.minute ?? 0), UInt8(c.second ?? 0), weekday, fractions,
            0x01,  // adjust reason: manual time update
        ]
    }
}
