import CareHub
import Foundation
import Logging
import TestSupport
import Testing

/// The hub's store on a fresh PostgreSQL started for one test.
enum HubFixture {
    /// Runs `body` with a migrated store (every migration applied once, none on a second start), then stops the
    /// server, also when `body` throws.
    static func withStore(scratch: ScratchDirectory, _ body: @Sendable (HubStore) async throws -> Void) async throws {
        let postgres = try await PostgresServer(directory: scratch.url)
        try await postgres.start()
        let passwordFile = try scratch.writeSecret("password", postgres.password)
        let database = try HubDatabase(url: postgres.url, passwordFile: passwordFile)
        do {
            try await database.withClient(logger: Logger(label: "test")) { client in
                let store = HubStore(client: client, logger: Logger(label: "test"))
                #expect(try await store.migrate() == HubSchema.migrations.map(\.name))
                #expect(
                    HubSchema.migrations.map(\.name) == [
                        "v1-bridges", "v1-received", "v2-outcome-changes", "v3-bridge-backlog", "v4-changes",
                        "v5-retractions-devices", "v6-client-certificates", "v7-users", "v8-patient-names",
                        "v9-overview-index", "v10-quarantine", "v11-task-versions",
                    ]
                )
                #expect(try await store.migrate().isEmpty, "a second start applies nothing")
                try await body(store)
            }
        } catch {
            await postgres.stop()
            throw error
        }
        await postgres.stop()
    }
}
