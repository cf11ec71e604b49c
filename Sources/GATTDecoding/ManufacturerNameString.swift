public import BridgeFoundation

/// Manufacturer Name String (0x2A29) of the Device Information Service: the name of the device's manufacturer, as UTF-8 text.
///
/// Trailing NUL and whitespace padding is trimmed; invalid UTF-8 is replaced, never rejected.
/// - SeeAlso: Device Information Service 1.1, GATT Specification Supplement §3.Manufacturer Name String;
///   `gatt-reference.md` §11.
public struct ManufacturerNameString: GATTPayload, Hashable {
    public static let identifier = "manufacturer-name-string"
    public static let name = "Manufacturer Name String"
    public static let source = PayloadSource.characteristic(.manufacturerNameString)

    private var text: DeviceInformationText

    public init(from reader: inout ByteReader) throws(GATTDecodingError) {
        text = DeviceInformationText(from: &reader)
    }

    /// The trimmed text.
    public var value: String { text.value }
    /// The bytes as sent.
    public var raw: [UInt8] { text.raw }
    public var fields: JSONObject { text.fields }
}
