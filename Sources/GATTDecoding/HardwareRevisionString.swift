public import BridgeFoundation

/// Hardware Revision String (0x2A27) of the Device Information Service: the hardware revision, as UTF-8 text.
///
/// Trailing NUL and whitespace padding is trimmed; invalid UTF-8 is replaced, never rejected.
/// - SeeAlso: Device Information Service 1.1, GATT Specification Supplement §3.Hardware Revision String;
///   `gatt-reference.md` §11.
public struct HardwareRevisionString: GATTPayload, Hashable {
    public static let identifier = "hardware-revision-string"
    public static let name = "Hardware Revision String"
    public static let source = PayloadSource.characteristic(.hardwareRevisionString)

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
