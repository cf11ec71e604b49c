/// A Bluetooth UUID: 16-bit or 32-bit assigned numbers on the SIG base, or a full 128-bit UUID.
///
/// An open set: any UUID a device sends round-trips, the ones CareBridge knows have names below.
/// Parsing accepts `2A9D`, `0x2a9d`, `00002a9d`, and `00002a9d-0000-1000-8000-00805f9b34fb` (any case).
public struct BluetoothUUID: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The upper and lower 64 bits (stored as integers so copying a UUID costs nothing).
    public let high: UInt64
    public let low: UInt64

    /// The Bluetooth base UUID `00000000-0000-1000-8000-00805F9B34FB` with the assigned number zeroed.
    private static let baseHigh: UInt64 = 0x0000_0000_0000_1000
    private static let baseLow: UInt64 = 0x8000_0080_5F9B_34FB

    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// Parses the usual spellings; nil when the text is not a UUID.
    public init?(_ text: String) {
        var digits = Substring(text)
        if digits.hasPrefix("0x") || digits.hasPrefix("0X") { digits = digits.dropFirst(2) }
        if digits.contains("-") {
            // Dashes only in the canonical 8-4-4-4-12 layout.
            let groups = digits.split(separator: "-", omittingEmptySubsequences: false).map(\.count)
            guard groups == [8, 4, 4, 4, 12] else { return nil }
        }
        let hexDigits = digits.filter { $0 != "-" }
        guard !hexDigits.isEmpty, hexDigits.allSatisfy(\.isHexDigit) else { return nil }
        switch hexDigits.count {
        case 4, 8:
            guard let value = UInt64(hexDigits, radix: 16) else { return nil }
            self.init(high: value << 32 | Self.baseHigh, low: Self.baseLow)
        case 32:
            guard let high = UInt64(hexDigits.prefix(16), radix: 16), let low = UInt64(hexDigits.suffix(16), radix: 16)
            else { return nil }
            self.init(high: high, low: low)
        default:
            return nil
        }
    }

    /// A 16-bit assigned number on the Bluetooth base UUID.
    public init(_ short: UInt16) {
        self.init(high: UInt64(short) << 32 | Self.baseHigh, low: Self.baseLow)
    }

    /// The 16-bit assigned number, when this UUID is one on the Bluetooth base.
    public var shortValue: UInt16? {
        guard low == Self.baseLow, high & 0xFFFF_0000_FFFF_FFFF == Self.baseHigh else { return nil }
        return UInt16(truncatingIfNeeded: high >> 32)
    }

    /// The 128 bits as 32 lowercase hex digits, no dashes.
    public var hex: String {
        func digits(_ value: UInt64) -> String {
            let text = String(value, radix: 16)
            return String(repeating: "0", count: 16 - text.count) + text
        }
        return digits(high) + digits(low)
    }

    /// `2A9D` for SIG assigned numbers, else the dashed 128-bit form.
    public var description: String {
        if let shortValue {
            // Four upper-case hex digits, written directly (this is part of every sample's idempotency key).
            return String(unsafeUninitializedCapacity: 4) { buffer in
                for index in 0..<4 {
                    let nibble = UInt8(truncatingIfNeeded: shortValue >> UInt16(12 - 4 * index)) & 0x0F
                    buffer[index] = nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "A") - 10 + nibble
                }
                return 4
            }
        }
        return uuidString
    }

    /// The dashed lowercase 128-bit form BlueZ uses, e.g. `00002a9d-0000-1000-8000-00805f9b34fb`.
    public var uuidString: String {
        let characters = Array(hex)
        let groups = [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(characters[$0]) }
        return groups.joined(separator: "-")
    }

    public static func < (lhs: BluetoothUUID, rhs: BluetoothUUID) -> Bool {
        (lhs.high, lhs.low) < (rhs.high, rhs.low)
    }
}

// MARK: - Assigned numbers CareBridge uses

extension BluetoothUUID {
    // Services
    public static let healthThermometerService = BluetoothUUID(0x1809)
    public static let deviceInformationService = BluetoothUUID(0x180A)
    public static let heartRateService = BluetoothUUID(0x180D)
    public static let batteryService = BluetoothUUID(0x180F)
    public static let bloodPressureService = BluetoothUUID(0x1810)
    public static let glucoseService = BluetoothUUID(0x1808)
    public static let bodyCompositionService = BluetoothUUID(0x181B)
    public static let weightScaleService = BluetoothUUID(0x181D)
    public static let pulseOximeterService = BluetoothUUID(0x1822)
    public static let currentTimeService = BluetoothUUID(0x1805)
    /// Generic Health Sensor (GHS 1.0, adopted 2023-06-13). The adopted number, from Bluetooth Assigned Numbers
    /// (as generated into trouble-host's `service::GENERIC_HEALTH_SENSOR` and Realtek's `ghss_gatt_svc.h`);
    /// draft-era examples (Philips' GHS demo peripheral) still advertise the provisional 0x7F44.
    public static let genericHealthSensorService = BluetoothUUID(0x1840)

    // Characteristics
    public static let dateTime = BluetoothUUID(0x2A08)
    public static let glucoseMeasurement = BluetoothUUID(0x2A18)
    public static let batteryLevel = BluetoothUUID(0x2A19)
    public static let temperatureMeasurement = BluetoothUUID(0x2A1C)
    public static let temperatureType = BluetoothUUID(0x2A1D)
    public static let intermediateTemperature = BluetoothUUID(0x2A1E)
    public static let systemID = BluetoothUUID(0x2A23)
    public static let modelNumberString = BluetoothUUID(0x2A24)
    public static let serialNumberString = BluetoothUUID(0x2A25)
    public static let firmwareRevisionString = BluetoothUUID(0x2A26)
    public static let hardwareRevisionString = BluetoothUUID(0x2A27)
    public static let softwareRevisionString = BluetoothUUID(0x2A28)
    public static let manufacturerNameString = BluetoothUUID(0x2A29)
    public static let currentTime = BluetoothUUID(0x2A2B)
    public static let glucoseMeasurementContext = BluetoothUUID(0x2A34)
    public static let bloodPressureMeasurement = BluetoothUUID(0x2A35)
    public static let intermediateCuffPressure = BluetoothUUID(0x2A36)
    public static let heartRateMeasurement = BluetoothUUID(0x2A37)
    public static let bodySensorLocation = BluetoothUUID(0x2A38)
    public static let pnpID = BluetoothUUID(0x2A50)
    public static let recordAccessControlPoint = BluetoothUUID(0x2A52)
    public static let plxSpotCheckMeasurement = BluetoothUUID(0x2A5E)
    public static let plxContinuousMeasurement = BluetoothUUID(0x2A5F)
    public static let plxFeatures = BluetoothUUID(0x2A60)
    public static let bodyCompositionMeasurement = BluetoothUUID(0x2A9C)
    public static let weightMeasurement = BluetoothUUID(0x2A9D)
    public static let weightScaleFeature = BluetoothUUID(0x2A9E)
    /// User Data Service: User Index (GHS reads it for the Patient field's user).
    public static let userIndex = BluetoothUUID(0x2A9A)

    // Generic Health Sensor 1.0 and Elapsed Time Service 1.0, adopted numbers from Bluetooth Assigned Numbers
    // (characteristic_uuids.yaml; checked against trouble-host's generated `characteristic` constants and
    // Realtek's GHSS server header). Draft-era examples carry provisional 0x7Fxx numbers instead.
    public static let liveHealthObservations = BluetoothUUID(0x2B8B)
    public static let storedHealthObservations = BluetoothUUID(0x2BDD)
    public static let observationScheduleChanged = BluetoothUUID(0x2BF1)
    public static let currentElapsedTime = BluetoothUUID(0x2BF2)
    public static let healthSensorFeatures = BluetoothUUID(0x2BF3)
    public static let ghsControlPoint = BluetoothUUID(0x2BF4)
}
