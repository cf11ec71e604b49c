public import GATTDecoding

/// A Device Information string that names a field of the device identity (manufacturer, model, serial,
/// revisions): the `identity` role of a profile. The decoded, trimmed text goes onto every sample of the device.
public protocol DeviceIdentityString: GATTPayload {
    /// The identity field this string fills.
    static var identityField: WritableKeyPath<DeviceIdentity, String?> { get }
    /// The trimmed text (trailing NUL and whitespace removed).
    var value: String { get }
}

extension DeviceIdentityString {
    /// Sets this string's field of `identity` (nil when the device sent only padding).
    public func apply(to identity: inout DeviceIdentity) {
        identity[keyPath: Self.identityField] = value.isEmpty ? nil : value
    }
}

extension ManufacturerNameString: DeviceIdentityString {
    public static var identityField: WritableKeyPath<DeviceIdentity, String?> { \.manufacturer }
}

extension ModelNumberString: DeviceIdentityString {
    public static var identityField: WritableKeyPath<DeviceIdentity, String?> { \.model }
}

extension SerialNumberString: DeviceIdentityString {
    public static var identityField: WritableKeyPath<DeviceIdentity, String?> { \.serial }
}

extension FirmwareRevisionString: DeviceIdentityString {
    public static var identityField: WritableKeyPath<DeviceIdentity, String?> { \.firmware }
}

extension HardwareRevisionString: DeviceIdentityString {
    public static var identityField: WritableKeyPath<DeviceIdentity, String?> { \.hardware }
}

extension SoftwareRevisionString: DeviceIdentityString {
    public static var identityField: WritableKeyPath<DeviceIdentity, String?> { \.software }
}

extension SystemID: DeviceIdentityString {
    public static var identityField: WritableKeyPath<DeviceIdentity, String?> { \.systemID }
    /// The EUI-64 (``SystemID/eui64``).
    public var value: String { eui64 }
}
