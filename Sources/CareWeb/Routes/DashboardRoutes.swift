import CarePlan
import CareStore
import Foundation
import Hummingbird

/// `/` (where a user starts) and `/patients`: every patient the user may see, most urgent first (open alerts,
/// then overdue events, then least done today).
struct DashboardRoutes {
    let app: CareWebApp

    func add(to group: RouterGroup<WebContext>) {
        group.get("/") { _, context -> Response in
            let user = try context.requireUser()
            let visible = try await visiblePatients(user)
            if visible.count == 1, user.role != .clinician, user.role != .admin {
                return .redirect(to: "/patients/\(visible[0].id)/today", type: .normal)
            }
            return .redirect(to: "/patients", type: .normal)
        }
        group.get("patients") { _, context -> Response in
            let user = try context.requireUser()
            let rows = try await rows(for: visiblePatients(user))
            let zone = app.store.bridgeZone
            return app.pages.page(
                title: "Patients",
                template: "patients",
                content: [
                    "rows": rows, "hasRows": !rows.isEmpty,
                    "dayLabel": CalendarDay(containing: app.now(), zone: zone).label(zone: zone),
                ],
                session: context.session,
                live: nil
            )
        }
    }

    private func visiblePatients(_ user: CareUser) async throws -> [Patient] {
        try await app.store.patients().filter { user.maySee(patientID: $0.id) }
    }

    private func rows(for patients: [Patient]) async throws -> [[String: Any]] {
        let now = app.now()
        let day = CalendarDay(containing: now, zone: app.store.bridgeZone)
        var rows: [(alerts: Int, overdue: Int, done: Int, total: Int, patient: Patient)] = []
        for patient in patients {
            let store = app.store.scoped(to: patient.id)
            let events = try await store.events(matching: EventQuery(from: day.start, to: day.end))
                .filter(\.impactsAdherence)
            let overdue = events.filter { $0.outcome == nil && $0.end < now }.count
            let alerts = try await store.alerts(includeClosed: false).count
            rows.append((alerts, overdue, events.filter(\.isCompleted).count, events.count, patient))
        }
        rows.sort {
            ($1.alerts, $1.overdue, $0.patient.name.lowercased()) < (
                $0.alerts, $0.overdue, $1.patient.name.lowercased()
            )
        }
        return rows.map { row in
            [
                "id": row.patient.id, "name": row.patient.name, "alerts": row.alerts, "overdue": row.overdue,
                "done": row.done, "total": row.total,
                "rowClass": row.alerts > 0 ? "urgent" : row.overdue > 0 ? "late" : "",
            ]
        }
    }
}

extension WebContext {
    /// The signed-in user (the login middleware has made sure there is one).
    func requireUser() throws -> CareUser {
        guard let user = session?.user else { throw WebError(.unauthorized, "Your session has ended; sign in again.") }
        return user
    }
}
