/// A Bluetooth UUID: 16-bit or 32-bit assigned numbers on the SIG base, or a full 128-bit UUID.
///
/// An open set: any UUID a device sends round-trips, the ones CareBridge knows have names below.
/// Parsing accepts `2A9D`, `0x2a9d`, `00002a9d`, and `00002a9d-0000-1000-8000-00805f9b34fb` (any case).
public struct BluetoothUUID: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The 128 bits as 32 lowercase hex digits, no dashes.
    public let hex: String

    private static let baseSuffix = "00001000800000805f9b34fb"

    /// Parses the usual spellings; nil when the text is not a UUID.
    public init?(_ text: String) {
        var digits = text.lowercased()
        if digits.hasPrefix("0x") { digits.removeFirst(2) }
        digits.removeAll { $0 == "-" }
        guard !digits.isEmpty, digits.allSatisfy(\.isHexDigit) else { return nil }
        switch digits.count {
        case 4: hex = "0000" + digits + Self.baseSuffix
        case 8: hex = digits + Self.baseSuffix
        case 32: hex = digits
        default: return nil
        }
    }

    /// A 16-bit assigned number on the Bluetooth base UUID.
    public init(_ short: UInt16) {
        let digits = String(short, radix: 16)
        hex = "0000" + String(repeating: "0", count: 4 - digits.count) + digits + Self.baseSuffix
    }

    /// The 16-bit assigned number, when this UUID is one on the Bluetooth base.
    public var shortValue: UInt16? {
        guard hex.hasPrefix("0000"), hex.hasSuffix(Self.baseSuffix) else { return nil }
        return UInt16(hex.dropFirst(4).prefix(4), radix: 16)
    }

    /// `2A9D` for SIG assigned numbers, else the dashed 128-bit form.
    public var description: String {
        if let shortValue {
            let digits = String(shortValue, radix: 16, uppercase: true)
            return String(repeating: "0", count: 4 - digits.count) + digits
        }
        return uuidString
    }

    /// The dashed lowercase 128-bit form BlueZ uses, e.g. `00002a9d-0000-1000-8000-00805f9b34fb`.
    public var uuidString: String {
        let characters = Array(hex)
        let groups = [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(characters[$0]) }
        return groups.joined(separator: "-")
    }

    public static func < (lhs: BluetoothUUID, rhs: BluetoothUUID) -> Bool { lhs.hex < rhs.hex }
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
}
