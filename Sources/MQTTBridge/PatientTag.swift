/// The patient a published reading belongs to, as MQTT topics and Home Assistant devices name it.
public struct PatientTag: Sendable, Hashable {
    /// The patient's id (a topic level, reduced to `[a-z0-9_-]`).
    public var id: String
    /// The patient's name, shown in the Home Assistant device name.
    public var name: String

    public init(id: String, name: String) {
        self.id = id
        self.name = name
    }
}
