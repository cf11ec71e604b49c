public import BridgeFoundation

/// Where a payload comes from: the value of a GATT characteristic, or the Service Data of an advertisement.
public enum PayloadSource: Sendable, Hashable {
    case characteristic(BluetoothUUID)
    case serviceData(BluetoothUUID)

    public var uuid: BluetoothUUID {
        switch self {
        case .characteristic(let uuid), .serviceData(let uuid): uuid
        }
    }

    /// True for advertisement Service Data formats.
    public var isServiceData: Bool {
        if case .serviceData = self { return true }
        return false
    }
}

/// A value CareBridge can decode from bytes a device sent.
///
/// Conforming types are pure: they read from a ``ByteReader`` and throw a positioned ``GATTDecodingError``.
/// Which decoder runs for a device is the device profile's choice (`Devices/`); the UUID is only a default.
public protocol GATTPayload: Sendable {
    /// Stable decoder name used by device profiles, e.g. `weight-measurement`, `mi-scale-v1`.
    static var identifier: String { get }
    /// The specification's name, e.g. `Weight Measurement`.
    static var name: String { get }
    /// The characteristic or service-data UUID this decoder is written for.
    static var source: PayloadSource { get }

    /// Decodes one payload.
    /// - Throws: ``GATTDecodingError`` naming the offset and what was expected there.
    init(from reader: inout ByteReader) throws(GATTDecodingError)

    /// Every decoded field, in the specification's order, with special values as their names.
    var fields: JSONObject { get }

    /// Whether ``fields`` can hold an IEEE 11073 special value (`NaN`, `NRes`, `reserved`) by name; true unless a
    /// type says otherwise. A type whose fields never do (integers and fixed words only) returns false, so the
    /// pipeline's check for values without a value does not build its fields for every payload.
    static var fieldsMayHoldSpecialValues: Bool { get }
}

extension GATTPayload {
    public static var fieldsMayHoldSpecialValues: Bool { true }

    /// `Weight Measurement (2A9D)`: the name used in errors and output.
    public static var displayName: String { "\(name) (\(source.uuid))" }

    /// Decodes a whole payload.
    public static func decode(_ bytes: [UInt8]) throws(GATTDecodingError) -> Self {
        var reader = ByteReader(bytes, for: Self.self)
        return try Self(from: &reader)
    }
}
