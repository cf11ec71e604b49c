import CareHub
import CareStore
import CareWeb
import Foundation
import Logging
import TestSupport
import Testing

extension HubFixture {
    /// Every dashboard user's password.
    static let dashboardPassword = Browser.password

    /// Runs `body` with the hub's server (sync and dashboard, its clock at ``CareTeamWard/now``) over a fresh
    /// PostgreSQL holding the ward sent by its three bridges, and two users: a nurse linked to every patient and a
    /// carer linked to Ann only (each with ``dashboardPassword``).
    static func withDashboard(
        scratch: ScratchDirectory,
        _ body: @escaping @Sendable (HubServer) async throws -> Void
    ) async throws {
        let ward = try await CareTeamWard(scratch: scratch)
        try await withStore(scratch: scratch) { hub in
            try await ward.send(to: hub)
            let hash = PasswordHasher(cost: 4).hash(dashboardPassword)
            for (id, role, patients) in [
                ("nurse", CareUser.Role.clinician, ["ann", "ben", "cleo"]), ("carer", .caregiver, ["ann"]),
            ] {
                let user = CareUser(id: id, displayName: id.capitalized, role: role, patientIDs: patients)
                try await hub.addUser(user, passwordHash: hash, at: CareTeamWard.now)
            }
            await #expect(throws: HubError.self, "a patient no bridge is enrolled for") {
                let user = CareUser(id: "x", displayName: "X", role: .clinician, patientIDs: ["zoe"])
                try await hub.addUser(user, passwordHash: hash, at: CareTeamWard.now)
            }
            let server = dashboardServer(hub, zone: CareTeamWard.zone, now: CareTeamWard.now)
            try await body(server)
        }
    }

    /// The hub's server (sync and dashboard) over `hub`, its clock fixed at `now`, times shown in `zone`.
    static func dashboardServer(_ hub: HubStore, zone: TimeZone, now: Date) -> HubServer {
        let configuration = WebConfiguration(passwordCost: 4)
        return HubServer(
            store: hub,
            configuration: configuration,
            dashboard: CareTeamDashboard(
                users: hub,
                overview: hub,
                configuration: configuration,
                zone: zone,
                logger: Logger(label: "test"),
                now: { now }
            ),
            logger: Logger(label: "test")
        )
    }
}
