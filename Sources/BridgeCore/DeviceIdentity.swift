/// What is known about the device a sample came from: the address it used and what Device Information said.
public struct DeviceIdentity: Sendable, Hashable, Codable {
    public var address: String?
    public var name: String?
    public var manufacturer: String?
    public var model: String?
    public var serial: String?
    public var firmware: String?
    public var hardware: String?
    public var software: String?
    /// The IEEE EUI-64 of the Device Information System ID (0x2A23), `00-1B-DC-FF-FE-12-34-56` (OUI first).
    public var systemID: String?
    /// Id of the Devices/ profile that claimed the device.
    public var profile: String?

    public init(
        address: String? = nil,
        name: String? = nil,
        manufacturer: String? = nil,
        model: String? = nil,
        serial: String? = nil,
        firmware: String? = nil,
        hardware: String? = nil,
        software: String? = nil,
        profile: String? = nil,
        systemID: String? = nil
    ) {
        self.address = address
        self.name = name
        self.manufacturer = manufacturer
        self.model = model
        self.serial = serial
        self.firmware = firmware
        self.hardware = hardware
        self.software = software
        self.profile = profile
        self.systemID = systemID
    }

    /// The most stable handle for this device: address, else serial, else name.
    public var key: String { address ?? serial ?? name ?? "unknown" }
}
