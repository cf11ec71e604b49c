import CarePlan
import CareStore
import Foundation
import Hummingbird

/// `/overview` and `/overview/:patient`: the care team's overview across the patients the user may see (the
/// latest reading of each type over the last week, the open alerts, patients with open alerts first), from any
/// ``CareTeamOverviewSource``: a bridge's store in the care app, the hub's PostgreSQL in its dashboard. What shows
/// is decided by ``CareTeamOverview``; which patients, by ``CareUser/maySee(patientID:)``.
struct OverviewRoutes {
    let source: any CareTeamOverviewSource
    let pages: PageRenderer
    /// The zone times are shown in for a user without their own.
    let zone: TimeZone
    let now: @Sendable () -> Date

    /// How far back a reading still counts as a patient's latest.
    static let window: TimeInterval = 7 * 24 * 3600

    /// Adds the list to `group` (signed in) and each patient's page behind the access check.
    func add(to group: RouterGroup<WebContext>) {
        group.get("overview") { _, context -> Response in
            let user = try context.requireUser()
            let overview = try await read(user.role == .admin ? nil : Set(user.patientIDs))
            let shown = ShownTime(user: user, bridgeZone: zone)
            let rows = overview.entries.filter { user.maySee(patientID: $0.patient.id) }.map { row($0, shown) }
            return pages.page(
                title: "Overview",
                template: "overview",
                content: ["rows": rows, "hasRows": !rows.isEmpty],
                session: context.session
            )
        }
        group.group("overview/:patient").add(middleware: PatientAccessMiddleware()).get { _, context -> Response in
            let user = try context.requireUser()
            let id = try context.parameters.require("patient")
            guard let entry = try await read([id]).entries.first(where: { $0.patient.id == id }) else {
                throw WebError(.notFound, "There is no patient '\(id)'.")
            }
            var content = row(entry, ShownTime(user: user, bridgeZone: zone))
            content["alertList"] = entry.openAlerts.map { alert in
                [
                    "severity": alert.severity, "message": alert.message,
                    "at": ShownTime(user: user, bridgeZone: zone).dateTime(alert.occurredAt),
                ]
            }
            return pages.page(
                title: entry.patient.name,
                template: "overviewPatient",
                content: content,
                session: context.session
            )
        }
    }

    private func read(_ patients: Set<String>?) async throws -> CareTeamOverview {
        CareTeamOverview(
            rows: try await source.overviewRows(patients: patients, since: now().addingTimeInterval(-Self.window))
        )
    }

    /// One patient's values for the templates.
    private func row(_ entry: CareTeamOverview.Entry, _ shown: ShownTime) -> [String: Any] {
        [
            "id": entry.patient.id, "name": entry.patient.name,
            "homes": entry.patient.homes.joined(separator: ", "), "alerts": entry.openAlerts.count,
            "rowClass": entry.openAlerts.isEmpty ? "" : "urgent",
            "readings": entry.latest.map { latest -> [String: Any] in
                let reading = latest.reading
                var text = "\(reading.type) \(String(format: "%g", reading.value)) \(reading.unit)"
                if latest.isOutOfRange { text += " (out of range)" }
                if let trend = latest.trend { text += ", \(trend)" }
                return ["text": text, "at": shown.dateTime(reading.start)]
            },
        ]
    }
}
