import CarePlan
import CareStore
import Foundation
import Hummingbird

/// `/` (where a user starts) and `/patients`: every patient the user may see, most urgent first (open alerts,
/// then overdue events, then least done today), from the ward's ``PatientListSnapshot``.
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
            let rows = try await rows(for: user)
            let zone = app.store.bridgeZone
            var content: [String: Any] = [
                "rows": rows, "hasRows": !rows.isEmpty,
                "dayLabel": CalendarDay(containing: app.now(), zone: zone).label(zone: zone),
            ]
            let shown = ShownTime(user: user, bridgeZone: zone)
            if let note = shown.note(patientName: "each patient", at: app.now()) { content["zoneNote"] = note }
            return app.pages.page(
                title: "Patients",
                template: "patients",
                content: content,
                session: context.session,
                live: nil
            )
        }
    }

    private func visiblePatients(_ user: CareUser) async throws -> [Patient] {
        try await app.store.patients().filter { user.maySee(patientID: $0.id) }
    }

    private func rows(for user: CareUser) async throws -> [[String: Any]] {
        let now = app.now()
        let day = CalendarDay(containing: now, zone: app.store.bridgeZone)
        let shown = ShownTime(user: user, bridgeZone: app.store.bridgeZone)
        // The whole ward's reads are shared by every request until the store changes; only who may see whom and
        // what is overdue at this minute are worked out per request.
        let snapshot = try await app.patientList.snapshot(day: day, store: app.store)
        var rows: [(alerts: Int, overdue: Int, done: Int, total: Int, entry: PatientListSnapshot.Entry)] = []
        for entry in snapshot.entries where user.maySee(patientID: entry.patient.id) {
            let overdue = entry.today.filter { $0.outcome == nil && $0.end < now }.count
            rows.append((entry.openAlerts, overdue, entry.today.filter(\.isCompleted).count, entry.today.count, entry))
        }
        rows.sort {
            ($1.alerts, $1.overdue, $0.entry.patient.name.lowercased()) < (
                $0.alerts, $0.overdue, $1.entry.patient.name.lowercased()
            )
        }
        return rows.map { row in
            [
                "id": row.entry.patient.id, "name": row.entry.patient.name, "alerts": row.alerts,
                "overdue": row.overdue, "done": row.done, "total": row.total,
                "vitals": row.entry.vitals.map { "\($0.text) (\(shown.dateTime($0.at)))" }.joined(separator: "; "),
                "rowClass": row.alerts > 0 ? "urgent" : row.overdue > 0 ? "late" : "",
            ]
        }
    }

    /// Each measured task's last value and its direction against the one before, `Weigh yourself 72.5 kg, rising`,
    /// with the instant it was measured.
    static func vitals(_ events: [CareEvent]) -> [(text: String, at: Date)] {
        let measured = events.filter { $0.kind == .assessment && $0.answer == nil }
        var byTask: [String: [OutcomeValue]] = [:]
        var order: [String] = []
        var titles: [String: String] = [:]
        for event in measured.sorted(by: { $0.start < $1.start }) {
            guard let value = event.outcome?.values.last else { continue }
            if byTask[event.taskID] == nil { order.append(event.taskID) }
            byTask[event.taskID, default: []].append(value)
            titles[event.taskID] = event.title
        }
        return order.compactMap { task in
            guard let values = byTask[task], let last = values.last else { return nil }
            var text = "\(titles[task] ?? task) \(TodayPage.quantity(last))"
            if last.comparator != nil { text += " (out of range)" }
            if values.count > 1, let previous = values.dropLast().last,
                let trend = CareTeamOverview.trend(from: previous.value, to: last.value)
            {
                text += ", \(trend)"
            }
            return (text, last.measuredAt)
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
