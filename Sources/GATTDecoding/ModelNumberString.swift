public import BridgeFoundation

/// Model Number String (0x2A24) of the Device Information Service: the model number the vendor assigned, as UTF-8 text.
/// - SeeAlso: Device Information Service 1.1, GATT Specification Supplement §3.Model Number String;
///   `gatt-reference.md` §11.
public struct ModelNumberString: DeviceInformationString {
    public static let characteristic = (name: "Model Number String", uuid: BluetoothUUID.modelNumberString)
    public let text: DeviceInformationText
    public init(text: DeviceInformationText) { self.text = text }
}
