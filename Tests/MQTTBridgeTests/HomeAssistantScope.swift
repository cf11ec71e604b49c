import Testing

/// A suite trait that starts one ``HomeAssistantServer`` for the whole suite (Home Assistant starts slowly) and
/// stops it when the suite ends; tests read it as ``HomeAssistantServer/current``.
struct HomeAssistantScope: SuiteTrait, TestScoping {
    var isRecursive: Bool { false }

    func provideScope(
        for test: Test,
        testCase: Test.Case?,
        performing function: @Sendable () async throws -> Void
    ) async throws {
        let server = try await HomeAssistantServer.start()
        print("Home Assistant started in \(server.startDuration) (to its MQTT entry loaded)")
        do {
            try await HomeAssistantServer.$current.withValue(server) { try await function() }
        } catch {
            server.stop()
            throw error
        }
        server.stop()
    }
}

extension Trait where Self == HomeAssistantScope {
    /// One real Home Assistant with a private mosquitto for the suite.
    static var homeAssistant: Self { Self() }
}
