import CarePlan
import CareStore
import Foundation
import Hummingbird
import Logging

/// `/overview`, `/overview/:patient` (with each open alert's Acknowledge, `POST /overview/:patient/acknowledge`)
/// and `/overview/:patient/record?day=DAY`: the care team's overview across the patients the user may see (the
/// latest reading of each type over the last week, the open alerts, patients with open alerts first) and one
/// patient's record day by day, from any ``CareTeamSource``: a bridge's store in the care app, the hub's
/// PostgreSQL in its dashboard. What shows is decided by ``CareTeamOverview`` and ``CareRecordRows``; which
/// patients, by ``CareUser/maySee(patientID:)`` (``PatientAccessMiddleware`` guards every patient route).
struct OverviewRoutes {
    let source: any CareTeamSource
    let pages: PageRenderer
    /// The zone times are shown in for a user without their own, and the record's days when no day is asked for.
    let zone: TimeZone
    let now: @Sendable () -> Date
    let logger: Logger

    /// How far back a reading still counts as a patient's latest.
    static let window: TimeInterval = 7 * 24 * 3600

    /// Adds the list to `group` (signed in) and each patient's pages behind the access check.
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
        let patient = group.group("overview/:patient").add(middleware: PatientAccessMiddleware())
        patient.get { request, context in try await summary(request, context: context) }
        patient.get("record") { request, context in try await record(request, context: context) }
        patient.post("acknowledge") { request, context in try await acknowledge(request, context: context) }
    }

    /// The patient's open alerts and latest readings.
    private func summary(
        _ request: Request,
        context: WebContext,
        error: String? = nil,
        status: HTTPResponse.Status = .ok
    ) async throws -> Response {
        let (user, entry) = try await patient(context)
        let shown = ShownTime(user: user, bridgeZone: zone)
        var content = row(entry, shown)
        content["onSummary"] = true
        content["hasAlerts"] = !entry.openAlerts.isEmpty
        content["alerts"] = entry.openAlerts.map { alert -> [String: Any] in
            var row: [String: Any] = [
                "key": alert.key, "severity": alert.severity, "severityLabel": alert.severity.capitalized,
                "message": alert.message, "when": shown.dateTime(alert.occurredAt),
                "acknowledgeAction": "/overview/\(entry.patient.id)/acknowledge",
            ]
            if let sent = alert.acknowledgementSentAt { row["sentAt"] = shown.dateTime(sent) }
            return row
        }
        if let error { content["error"] = error }
        if request.uri.queryParameters["acknowledged"] != nil {
            content["notice"] =
                entry.patient.homes.isEmpty
                ? "Acknowledged."
                : "Acknowledgement sent to the bridge: the alert closes here once the bridge has answered."
        }
        return pages.page(
            title: entry.patient.name,
            template: "overviewPatient",
            content: content,
            session: context.session,
            status: status
        )
    }

    /// One day of the patient's record (`?day=yyyy-MM-dd`, else today where the overview's zone is).
    private func record(_ request: Request, context: WebContext) async throws -> Response {
        let (user, entry) = try await patient(context)
        let today = CalendarDay(containing: now(), zone: zone)
        var day = today
        if let text = request.uri.queryParameters["day"].map(String.init), !text.isEmpty {
            guard let asked = CalendarDay(key: text, zone: zone) else {
                throw WebError(.badRequest, "'\(text)' is not a day (yyyy-MM-dd).")
            }
            day = asked
        }
        let rows = try await source.recordRows(patient: entry.patient.id, days: day.key...day.key)
        let shown = ShownTime(user: user, bridgeZone: zone)
        let table = { (readings: [CareRecordRows.Reading], caption: String) -> [String: Any] in
            [
                "rows": readings.map { ReadingsPage.row($0, user: user, shown: shown) },
                "hasRows": !readings.isEmpty, "tableCaption": caption,
            ]
        }
        let previous = day.adding(days: -1, zone: zone)
        let next = day.adding(days: 1, zone: zone)
        var content: [String: Any] = [
            "id": entry.patient.id, "name": entry.patient.name, "onRecord": true, "day": day.key,
            "dayLabel": day.label(zone: zone), "previousDay": previous.key, "previousLabel": previous.label(zone: zone),
            "usable": table(
                rows.readings,
                "Readings of \(entry.patient.name) on \(day.label(zone: zone)), oldest first"
            ),
            "held": table(rows.quarantined, "Quarantined readings of \(entry.patient.name), oldest first"),
            "hasEvents": !rows.events.isEmpty,
            // On the hub each event and outcome names its bridges (one event the plan gives on two bridges is one
            // row naming both); a bridge's own record has none and shows no such column.
            "bridged": rows.events.contains { !$0.bridges.isEmpty } || rows.outcomes.contains { $0.bridge != nil },
            "events": rows.events.map { event -> [String: Any] in
                let state = event.state(at: now())
                var stateText = state == .due ? "not yet due" : state.rawValue
                let by = event.bridges.filter { state == .done ? $0.isCompleted : $0.notDoneReason != nil }
                if event.bridges.count > 1, !by.isEmpty {
                    stateText += " on " + by.map(\.bridge).joined(separator: " and ")
                }
                let versions = event.bridges.isEmpty ? [event.taskVersion] : event.bridges.map(\.taskVersion)
                return [
                    "when": event.isAllDay
                        ? "all day" : shown.window(start: event.start, end: event.end, planZone: zone),
                    "task": event.title, "version": versions.map { String($0.prefix(8)) }.joined(separator: ", "),
                    "bridges": event.bridges.map(\.bridge).joined(separator: ", "),
                    "state": stateText, "stateClass": state == .missed ? "missed" : "",
                ]
            },
            "hasOutcomes": !rows.outcomes.isEmpty,
            "outcomes": rows.outcomes.map { outcome -> [String: Any] in
                let values = outcome.values.map { $0.map { String(format: "%g", $0) } ?? "no number" }
                return [
                    "task": outcome.taskID, "version": String(outcome.taskVersion.prefix(8)),
                    "occurrence": outcome.occurrence, "bridge": outcome.bridge ?? "",
                    "outcome": values.isEmpty ? "done" : "done: \(values.joined(separator: ", "))",
                ]
            },
        ]
        if next.key <= today.key {
            content["nextDay"] = next.key
            content["nextLabel"] = next.label(zone: zone)
        }
        return pages.page(
            title: "\(entry.patient.name): \(day.label(zone: zone))",
            template: "overviewRecord",
            content: content,
            session: context.session
        )
    }

    /// The Acknowledge button: the store acknowledges the alert (the hub sends it down to the alert's bridge) or
    /// says why not, shown on the patient's page.
    private func acknowledge(_ request: Request, context: WebContext) async throws -> Response {
        let (form, session) = try await FormBody.checked(request, context: context)
        let id = try context.parameters.require("patient")
        guard let key = form["alert"] else { throw WebError(.badRequest, "That is not an alert.") }
        if let refusal = try await source.acknowledgeAlert(patient: id, key: key, by: session.user.id, at: now()) {
            return try await summary(request, context: context, error: refusal, status: .conflict)
        }
        logger.info("care team: \(session.user.id) acknowledged alert \(key) of \(id)")
        return .redirect(to: "/overview/\(id)?acknowledged=1", type: .normal)
    }

    /// The signed-in user and the patient the route names, as the overview reads them.
    private func patient(_ context: WebContext) async throws -> (CareUser, CareTeamOverview.Entry) {
        let user = try context.requireUser()
        let id = try context.parameters.require("patient")
        guard let entry = try await read([id]).entries.first(where: { $0.patient.id == id }) else {
            throw WebError(.notFound, "There is no patient '\(id)'.")
        }
        return (user, entry)
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
