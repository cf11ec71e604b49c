public import BridgeFoundation

/// A Device Information Service string characteristic (Manufacturer Name, Model Number, Serial Number,
/// Hardware/Firmware/Software Revision): UTF-8 text whose trailing NUL and whitespace padding is trimmed and whose
/// invalid UTF-8 is replaced, never rejected (``DeviceInformationText``).
///
/// A type names the characteristic; its decoder identifier is that name in lower case with hyphens
/// (`Model Number String` → `model-number-string`).
/// - SeeAlso: Device Information Service 1.1; `gatt-reference.md` §11.
public protocol DeviceInformationString: GATTPayload, Hashable {
    /// The specification's name of the characteristic and its UUID.
    static var characteristic: (name: String, uuid: BluetoothUUID) { get }
    /// The text as read.
    var text: DeviceInformationText { get }
    init(text: DeviceInformationText)
}

extension DeviceInformationString {
    public static var identifier: String {
        characteristic.name.lowercased().split(separator: " ").joined(separator: "-")
    }
    public static var name: String { characteristic.name }
    public static var source: PayloadSource { .characteristic(characteristic.uuid) }

    public init(from reader: inout ByteReader) throws(GATTDecodingError) {
        self.init(text: DeviceInformationText(from: &reader))
    }

    /// The trimmed text.
    public var value: String { text.value }
    /// The bytes as sent.
    public var raw: [UInt8] { text.raw }
    public var fields: JSONObject { text.fields }
}
