public import BridgeFoundation

/// Serial Number String (0x2A25) of the Device Information Service: the serial number of this device, as UTF-8 text.
/// - SeeAlso: Device Information Service 1.1, GATT Specification Supplement §3.Serial Number String;
///   `gatt-reference.md` §11.
public struct SerialNumberString: DeviceInformationString {
    public static let characteristic = (name: "Serial Number String", uuid: BluetoothUUID.serialNumberString)
    public let text: DeviceInformationText
    public init(text: DeviceInformationText) { self.text = text }
}
