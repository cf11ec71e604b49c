import CarePlan
import CareStore
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// `/api/patients/:patient/calendar.ics`: the patient's upcoming care-plan events as an iCalendar feed
/// (``PlanCalendar``), from the start of today for `?days=` days (default 14, at most 92). A calendar app that
/// subscribes to it signs in with HTTP Basic (the care app's user name and password; see ``SessionMiddleware``);
/// ``PatientAccessMiddleware`` has checked the patient.
struct CalendarRoutes {
    let app: CareWebApp

    static let defaultDays = 14
    static let maximumDays = 92

    func addAPI(to group: RouterGroup<WebContext>) {
        group.get("calendar.ics") { request, context in try await feed(request, context: context) }
    }

    private func feed(_ request: Request, context: WebContext) async throws -> Response {
        let patient = try await app.patient(context)
        var days = Self.defaultDays
        if let text = request.uri.queryParameters["days"] {
            guard let value = Int(text), (1...Self.maximumDays).contains(value) else {
                throw WebError(.badRequest, "'days' is a number of days from 1 to \(Self.maximumDays).")
            }
            days = value
        }
        let now = app.now()
        let today = CalendarDay(containing: now, zone: app.store.bridgeZone)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = app.store.bridgeZone
        let end = calendar.date(byAdding: .day, value: days, to: today.start) ?? today.end
        let events = try await app.store.scoped(to: patient.id).events(
            matching: EventQuery(from: today.start, to: end)
        )
        let text = PlanCalendar(name: "\(patient.name): care plan", events: events, stamp: now).text()
        var headers = HTTPFields()
        headers[.contentType] = "text/calendar; charset=utf-8"
        headers[.contentDisposition] = "inline; filename=\"\(patient.id).ics\""
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}
