public import BridgeCore

/// A device as one patient's Devices screen shows it: who it is, how the registry files it for that patient, and
/// the patient's last reading from it.
public struct SeenDevice: Sendable, Hashable {
    /// What the device said about itself (address, name, model, serial); only the address or serial for a
    /// device registered but not heard from yet.
    public var identity: DeviceIdentity
    /// The registry's rows filing this device (or one of its user slots) under the patient.
    public var assignments: [DeviceAssignment]
    /// The patient's last live reading from it in the period asked for; nil when there is none.
    public var lastReading: StoredSample?

    public init(identity: DeviceIdentity, assignments: [DeviceAssignment], lastReading: StoredSample?) {
        self.identity = identity
        self.assignments = assignments
        self.lastReading = lastReading
    }

    /// The names the registry knows the device by: its address and its serial number, in upper case.
    public var registryNames: [String] {
        [identity.address, identity.serial].compactMap { $0?.uppercased() }
    }
}
