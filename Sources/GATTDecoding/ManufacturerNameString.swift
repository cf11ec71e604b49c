public import BridgeFoundation

/// Manufacturer Name String (0x2A29) of the Device Information Service: the name of the device's manufacturer, as UTF-8 text.
/// - SeeAlso: Device Information Service 1.1, GATT Specification Supplement §3.Manufacturer Name String;
///   `gatt-reference.md` §11.
public struct ManufacturerNameString: DeviceInformationString {
    public static let characteristic = (name: "Manufacturer Name String", uuid: BluetoothUUID.manufacturerNameString)
    public let text: DeviceInformationText
    public init(text: DeviceInformationText) { self.text = text }
}
