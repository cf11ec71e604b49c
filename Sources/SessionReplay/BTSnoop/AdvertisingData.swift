public import BridgeCore
import BridgeFoundation
import GATTDecoding

/// Advertising Data (and scan response) structures: length, AD type, data.
///
/// - SeeAlso: Bluetooth Core Specification Supplement Part A (data types) and Core Vol 3 Part C §11.
public enum AdvertisingData {
    /// The fields a recording keeps of one advertising payload, added onto `base` (a scan response adds to the
    /// advertisement it answers). Malformed trailing structures are ignored, as BlueZ does.
    public static func parse(
        _ bytes: [UInt8],
        rssi: Int?,
        into base: Advertisement = Advertisement()
    )
        -> Advertisement
    {
        var advertisement = base
        if let rssi { advertisement.rssi = rssi }
        var offset = 0
        while offset < bytes.count {
            let length = Int(bytes[offset])
            guard length > 0, offset + 1 + length <= bytes.count else { break }
            let type = bytes[offset + 1]
            let value = Array(bytes[(offset + 2)..<(offset + 1 + length)])
            offset += 1 + length
            switch type {
            case 0x02, 0x03:  // incomplete / complete list of 16-bit service UUIDs
                for index in stride(from: 0, to: value.count - 1, by: 2) {
                    add(BluetoothUUID(UInt16(value[index]) | UInt16(value[index + 1]) << 8), to: &advertisement)
                }
            case 0x04, 0x05:  // 32-bit service UUIDs
                for index in stride(from: 0, to: value.count - 3, by: 4) {
                    add(uuid32(Array(value[index..<(index + 4)])), to: &advertisement)
                }
            case 0x06, 0x07:  // 128-bit service UUIDs
                for index in stride(from: 0, to: value.count - 15, by: 16) {
                    add(uuid128(Array(value[index..<(index + 16)])), to: &advertisement)
                }
            case 0x08, 0x09:  // shortened / complete local name
                let name = String(decoding: value, as: UTF8.self)
                if type == 0x09 || advertisement.name == nil { advertisement.name = name }
            case 0x16 where value.count >= 2:  // service data, 16-bit UUID
                let uuid = BluetoothUUID(UInt16(value[0]) | UInt16(value[1]) << 8)
                advertisement.serviceData[uuid] = Array(value.dropFirst(2))
            case 0x20 where value.count >= 4:  // service data, 32-bit UUID
                advertisement.serviceData[uuid32(Array(value[0..<4]))] = Array(value.dropFirst(4))
            case 0x21 where value.count >= 16:  // service data, 128-bit UUID
                advertisement.serviceData[uuid128(Array(value[0..<16]))] = Array(value.dropFirst(16))
            case 0xFF where value.count >= 2:  // manufacturer specific data: company identifier, then data
                let company = UInt16(value[0]) | UInt16(value[1]) << 8
                advertisement.manufacturerData[company] = Array(value.dropFirst(2))
            default:
                continue
            }
        }
        return advertisement
    }

    private static func add(_ uuid: BluetoothUUID, to advertisement: inout Advertisement) {
        if !advertisement.serviceUUIDs.contains(uuid) { advertisement.serviceUUIDs.append(uuid) }
    }

    /// A 32-bit UUID (little-endian on air) in the Bluetooth base UUID.
    static func uuid32(_ bytes: [UInt8]) -> BluetoothUUID {
        let value = UInt64(bytes[0]) | UInt64(bytes[1]) << 8 | UInt64(bytes[2]) << 16 | UInt64(bytes[3]) << 24
        let base = BluetoothUUID(0)
        return BluetoothUUID(high: value << 32 | (base.high & 0xFFFF_FFFF), low: base.low)
    }

    /// A 128-bit UUID, little-endian on air.
    static func uuid128(_ bytes: [UInt8]) -> BluetoothUUID {
        var high: UInt64 = 0
        var low: UInt64 = 0
        for index in 0..<8 {
            low |= UInt64(bytes[index]) << (8 * UInt64(index))
            high |= UInt64(bytes[index + 8]) << (8 * UInt64(index))
        }
        return BluetoothUUID(high: high, low: low)
    }

    /// A UUID of 2, 4 or 16 bytes as ATT carries them.
    static func uuid(_ bytes: [UInt8]) -> BluetoothUUID? {
        switch bytes.count {
        case 2: BluetoothUUID(UInt16(bytes[0]) | UInt16(bytes[1]) << 8)
        case 4: uuid32(bytes)
        case 16: uuid128(bytes)
        default: nil
        }
    }
}
