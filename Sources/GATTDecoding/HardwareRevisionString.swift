public import BridgeFoundation

/// Hardware Revision String (0x2A27) of the Device Information Service: the hardware revision, as UTF-8 text.
/// - SeeAlso: Device Information Service 1.1, GATT Specification Supplement §3.Hardware Revision String;
///   `gatt-reference.md` §11.
public struct HardwareRevisionString: DeviceInformationString {
    public static let characteristic = (name: "Hardware Revision String", uuid: BluetoothUUID.hardwareRevisionString)
    public let text: DeviceInformationText
    public init(text: DeviceInformationText) { self.text = text }
}
