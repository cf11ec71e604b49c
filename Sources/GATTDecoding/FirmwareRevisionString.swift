public import BridgeFoundation

/// Firmware Revision String (0x2A26) of the Device Information Service: the firmware revision, as UTF-8 text.
/// - SeeAlso: Device Information Service 1.1, GATT Specification Supplement §3.Firmware Revision String;
///   `gatt-reference.md` §11.
public struct FirmwareRevisionString: DeviceInformationString {
    public static let characteristic = (name: "Firmware Revision String", uuid: BluetoothUUID.firmwareRevisionString)
    public let text: DeviceInformationText
    public init(text: DeviceInformationText) { self.text = text }
}
