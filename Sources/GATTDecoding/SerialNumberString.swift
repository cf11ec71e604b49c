public import BridgeFoundation

/// Serial Number String (0x2A25) of the Device Information Service: the serial number of this device, as UTF-8 text.
///
/// Trailing NUL and whitespace padding is trimmed; invalid UTF-8 is replaced, never rejected.
/// - SeeAlso: Device Information Service 1.1, GATT Specification Supplement §3.Serial Number String;
///   `gatt-reference.md` §11.
public struct SerialNumberString: GATTPayload, Hashable {
    public static let identifier = "serial-number-string"
    public static let name = "Serial Number String"
    public static let source = PayloadSource.characteristic(.serialNumberString)

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
