import CarePlan
import CareReport
import CareStore
import Foundation
import Hummingbird
import Insights
import Logging
import NIOCore
import NIOPosix

/// Insights (open alerts with acknowledge, the week's summary and charts), Connect (the care team with call,
/// message, mail and map links) and the care report as PDF or HTML, for one patient.
struct PatientScreensRoutes {
    let app: CareWebApp

    func add(to group: RouterGroup<WebContext>) {
        group.get("insights") { request, context in try await insights(request, context: context) }
        group.post("alerts/:alert/acknowledge") { request, context in try await acknowledge(request, context: context) }
        group.get("connect") { request, context in try await connect(request, context: context) }
        group.post("connect/share") { request, context in try await share(request, context: context) }
        group.get("report") { request, context in try await report(request, context: context) }
    }

    /// The period asked for (``DayPeriod``: `?from=DAY&to=DAY`, else the seven days up to the end of today).
    private func period(_ request: Request) throws -> (from: Date, to: Date) {
        let period = try DayPeriod(request, now: app.now(), zone: app.store.bridgeZone)
        return (period.from, period.to)
    }

    private func insights(_ request: Request, context: WebContext) async throws -> Response {
        let patient = try await app.patient(context)
        let store = app.store.scoped(to: patient.id)
        let (from, to) = try period(request)
        let now = app.now()
        try await AlertEngine.evaluate(store: store, from: from, to: min(to, now), now: now)
        let report = try await ReportBuilder.build(
            store: store,
            from: from,
            to: to,
            patient: patient.name,
            generatedAt: now
        )
        let shown = ShownTime(user: context.session?.user, bridgeZone: store.bridgeZone)
        let alerts = try await store.alerts(includeClosed: false, order: .triage)
        var content: [String: Any] = [
            "patientName": patient.name, "patientID": patient.id, "onInsights": true, "period": report.period,
            "summary": report.summary, "charts": report.charts.map { ["svg": HTMLReport.svg($0)] },
            "hasAlerts": !alerts.isEmpty,
            "alerts": alerts.map { alert -> [String: Any] in
                [
                    "id": "\(alert.id)", "severity": alert.trip.severity.rawValue,
                    "acknowledgeAction": "/patients/\(patient.id)/alerts/\(alert.id)/acknowledge",
                    "severityLabel": alert.trip.severity.rawValue.capitalized, "message": alert.trip.message,
                    "when": shown.longDateTime(alert.trip.occurredAt),
                ]
            },
        ]
        if let note = shown.note(patientName: patient.name, at: now) { content["zoneNote"] = note }
        return app.pages.page(
            title: "\(patient.name): insights",
            template: "insights",
            content: content,
            session: context.session,
            live: "/patients/\(patient.id)/live"
        )
    }

    private func acknowledge(_ request: Request, context: WebContext) async throws -> Response {
        let (_, session) = try await FormBody.checked(request, context: context)
        let patient = try await app.patient(context)
        guard let id = context.parameters.get("alert").flatMap(Int64.init) else {
            throw WebError(.badRequest, "That is not an alert.")
        }
        let store = app.store.scoped(to: patient.id)
        let by = session.user.id
        do {
            try await store.acknowledgeAlert(id: id, by: by, at: app.now())
        } catch {
            // A typed `catch where` on the code crashes Swift 6.3.1's SIL ownership verifier; test it inside.
            guard error.code == .alertNotFound else { throw error }
            throw WebError(.notFound, "There is no such open alert for \(patient.name).")
        }
        app.logger.info("care app: \(by) acknowledged alert \(id) of \(patient.id)")
        return .redirect(to: "/patients/\(patient.id)/insights", type: .normal)
    }

    private func connect(_ request: Request, context: WebContext) async throws -> Response {
        let patient = try await app.patient(context)
        let store = app.store.scoped(to: patient.id)
        let shown = ShownTime(user: context.session?.user, bridgeZone: store.bridgeZone)
        let contacts = try await store.contacts(patientID: patient.id)
        let shares = Dictionary(grouping: try await store.shares(), by: \.contactID)
        let dial = { (number: String) -> [String: String] in
            ["shown": number, "dial": number.filter { $0.isNumber || $0 == "+" }]
        }
        let rows = contacts.map { contact -> [String: Any] in
            var row: [String: Any] = [
                "name": contact.name, "phones": contact.phones.map(dial),
                "messaging": contact.messagingNumbers.map(dial),
                "emails": contact.emails,
            ]
            let role = [contact.role, contact.title, contact.organization].compactMap { $0 }.joined(separator: ", ")
            if !role.isEmpty { row["role"] = role }
            if let address = contact.address {
                row["address"] = address
                row["map"] = address.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
            }
            if !contact.receives.isEmpty {
                row["receives"] = contact.receives.map(\.rawValue).joined(separator: " and ")
            }
            row["id"] = contact.id
            row["shareable"] = contact.receives.contains(.reports)
            let shared = (shares[contact.id] ?? []).suffix(5).reversed().map { entry in
                "\(entry.what) \(entry.detail ?? "") (\(entry.channel), \(shown.dateTime(entry.sharedAt)))"
            }
            row["shared"] = shared
            row["hasShared"] = !shared.isEmpty
            return row
        }
        var content: [String: Any] = [
            "patientName": patient.name, "patientID": patient.id, "onConnect": true, "contacts": rows,
            "hasContacts": !rows.isEmpty,
        ]
        if let note = shown.note(patientName: patient.name, at: app.now()) { content["zoneNote"] = note }
        if let id = request.uri.queryParameters["shared"].map(String.init),
            let contact = contacts.first(where: { $0.id == id }),
            let from = request.uri.queryParameters["from"].flatMap({
                CalendarDay(key: String($0), zone: store.bridgeZone)
            })
        {
            content["notice"] = "The report of the week from \(from.key) is recorded as shared with \(contact.name)."
            content["download"] = "/patients/\(patient.id)/report?from=\(from.key)"
        }
        return app.pages.page(
            title: "\(patient.name): care team",
            template: "connect",
            content: content,
            session: context.session
        )
    }

    /// "Share this week's report" with a contact who receives reports: recorded in the sharing audit as a
    /// download prepared in the app by the signed-in user (what the app actually did: nothing is sent from
    /// here), then the page offers the PDF to hand over.
    private func share(_ request: Request, context: WebContext) async throws -> Response {
        let (form, session) = try await FormBody.checked(request, context: context)
        let patient = try await app.patient(context)
        let store = app.store.scoped(to: patient.id)
        let contacts = try await store.contacts(patientID: patient.id)
        guard let id = form["contact"], let contact = contacts.first(where: { $0.id == id }),
            contact.receives.contains(.reports)
        else {
            throw WebError(.badRequest, "That contact is not in \(patient.name)'s care team or receives no reports.")
        }
        let (from, to) = try period(request)
        let zone = store.bridgeZone
        let first = CalendarDay(containing: from, zone: zone).key
        let last = CalendarDay(containing: to.addingTimeInterval(-1), zone: zone).key
        try await store.recordShare(
            contactID: contact.id,
            what: "report",
            channel: "download",
            detail: "\(first) to \(last), prepared in the care app by \(session.user.id)",
            at: app.now()
        )
        app.logger.info("care app: \(session.user.id) shared the report \(first)–\(last) of \(patient.id) with \(id)")
        let query = id.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        return .redirect(to: "/patients/\(patient.id)/connect?shared=\(query)&from=\(first)", type: .normal)
    }

    /// The care report of the last seven days (or `?from=&to=` days), PDF unless `?format=html`.
    private func report(_ request: Request, context: WebContext) async throws -> Response {
        let patient = try await app.patient(context)
        let store = app.store.scoped(to: patient.id)
        let (from, to) = try period(request)
        let zone = store.bridgeZone
        let now = app.now()
        try await AlertEngine.evaluate(store: store, from: from, to: min(to, now), now: now)
        let data = try await ReportBuilder.build(
            store: store,
            from: from,
            to: to,
            patient: patient.name,
            generatedAt: now
        )
        if request.uri.queryParameters["format"] == "html" {
            return Response(
                status: .ok,
                headers: [
                    .contentType: "text/html; charset=utf-8",
                    // The report is a standalone document with its own inline stylesheet.
                    .contentSecurityPolicy: "default-src 'none'; style-src 'unsafe-inline'; img-src data:",
                ],
                body: .init(byteBuffer: ByteBuffer(string: HTMLReport.render(data)))
            )
        }
        let name = "care-report-\(patient.id)-\(CalendarDay(containing: from, zone: zone).key).pdf"
        return Response(
            status: .ok,
            headers: [.contentType: "application/pdf", .contentDisposition: "inline; filename=\"\(name)\""],
            body: .init(byteBuffer: ByteBuffer(bytes: PDFReport.render(data)))
        )
    }
}
