public import BridgeFoundation

/// Model Number String (0x2A24) of the Device Information Service: the model number the vendor assigned, as UTF-8 text.
///
/// Trailing NUL and whitespace padding is trimmed; invalid UTF-8 is replaced, never rejected.
/// - SeeAlso: Device Information Service 1.1, GATT Specification Supplement §3.Model Number String;
///   `gatt-reference.md` §11.
public struct ModelNumberString: GATTPayload, Hashable {
    public static let identifier = "model-number-string"
    public static let name = "Model Number String"
    public static let source = PayloadSource.characteristic(.modelNumberString)

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
