public import BridgeCore
public import CareStore

/// Session variables kept in the care store (`deviceSessionVariable`): what the transports load when a device
/// connects and save when its session completed.
public struct StoreSessionMemory: SessionMemory {
    public let store: CareStore

    public init(store: CareStore) {
        self.store = store
    }

    public func variables(device: String, profile: String) async throws -> SessionVariables {
        try await store.sessionVariables(device: device, profile: profile)
    }

    public func save(_ variables: [String: SessionValue?], device: String, profile: String) async throws {
        try await store.saveSessionVariables(variables, device: device, profile: profile)
    }
}
