/// An enrolled bridge, as the sync endpoint knows it once its token checked out.
public struct HubBridge: Sendable, Hashable {
    /// The hub's key for the bridge.
    public var id: Int64
    public var name: String
    /// The patients it may write for.
    public var patients: Set<String>

    public init(id: Int64, name: String, patients: Set<String>) {
        self.id = id
        self.name = name
        self.patients = patients
    }
}
