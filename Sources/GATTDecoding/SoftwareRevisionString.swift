public import BridgeFoundation

/// Software Revision String (0x2A28) of the Device Information Service: the software revision, as UTF-8 text.
/// - SeeAlso: Device Information Service 1.1, GATT Specification Supplement §3.Software Revision String;
///   `gatt-reference.md` §11.
public struct SoftwareRevisionString: DeviceInformationString {
    public static let characteristic = (name: "Software Revision String", uuid: BluetoothUUID.softwareRevisionString)
    public let text: DeviceInformationText
    public init(text: DeviceInformationText) { self.text = text }
}
