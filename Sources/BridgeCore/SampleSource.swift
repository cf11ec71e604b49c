public import BridgeFoundation
public import GATTDecoding

/// Where a sample came from: a device's characteristic or advertisement, or a person typing it in.
public struct SampleSource: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable, Codable {
        /// Decoded from what a device sent.
        case device
        /// Entered by hand (`carebridge ingest`).
        case manual
    }

    /// Characteristic (or service-data UUID) the payload arrived on.
    public var characteristic: BluetoothUUID?
    /// A device or a person. Declared after ``characteristic`` on purpose: it then sits in the byte after the
    /// optional UUID, and a source takes 48 bytes instead of 56 (the provenance box that holds one stays within
    /// 120 bytes, see `PayloadBytes`).
    public var kind: Kind
    /// Decoder that read the payload, e.g. `weight-measurement`.
    public var decoder: String?
    /// The device identity, boxed so that copying a sample stays cheap.
    public var device: DeviceIdentity? {
        get { deviceBox?.identity }
        set { deviceBox = newValue.map(DeviceBox.init) }
    }
    private var deviceBox: DeviceBox?

    public init(
        kind: Kind,
        characteristic: BluetoothUUID? = nil,
        decoder: String? = nil,
        device: DeviceIdentity? = nil
    ) {
        self.kind = kind
        self.characteristic = characteristic
        self.decoder = decoder
        self.deviceBox = device.map(DeviceBox.init)
    }

    public static func == (lhs: SampleSource, rhs: SampleSource) -> Bool {
        lhs.kind == rhs.kind && lhs.characteristic == rhs.characteristic && lhs.decoder == rhs.decoder
            && lhs.device == rhs.device
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(kind)
        hasher.combine(characteristic)
        hasher.combine(decoder)
        hasher.combine(device)
    }

    public static let manual = SampleSource(kind: .manual)

    /// A device source for one decoder, with the identity known so far.
    public static func device(_ payload: any GATTPayload.Type, identity: DeviceIdentity? = nil) -> SampleSource {
        SampleSource(kind: .device, characteristic: payload.source.uuid, decoder: payload.identifier, device: identity)
    }
}

/// Immutable storage for a ``DeviceIdentity`` shared by every sample of one payload.
private final class DeviceBox: Sendable {
    let identity: DeviceIdentity
    init(_ identity: DeviceIdentity) { self.identity = identity }
}
