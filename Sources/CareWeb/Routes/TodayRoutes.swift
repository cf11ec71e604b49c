import BridgeCore
import CarePlan
import CareStore
import Foundation
import Hummingbird
import Logging
import NIOCore

/// `/patients/:patient/today` (the day's Care Card and Tracker), its form, the live stream, and the JSON twin under
/// `/api/patients/:patient/today`. ``PatientAccessMiddleware`` has checked the patient before any of these runs.
struct TodayRoutes {
    let app: CareWebApp

    func add(to group: RouterGroup<WebContext>) {
        group.get("today") { request, context in try await page(request, context: context) }
        group.post("today/record") { request, context in try await record(request, context: context) }
        group.get("live") { request, context in try await live(request, context: context) }
    }

    func addAPI(to group: RouterGroup<WebContext>) {
        group.get("today") { request, context -> Response in
            let (patient, day) = try await target(request, context: context)
            let events = try await app.store.scoped(to: patient.id).events(
                matching: EventQuery(from: day.start, to: day.end)
            )
            return JSONBody.response(TodayJSON(patient: patient, day: day, events: events))
        }
    }

    private func page(
        _ request: Request,
        context: WebContext,
        error: String? = nil,
        status: HTTPResponse.Status = .ok
    )
        async throws -> Response
    {
        let (patient, day) = try await target(request, context: context)
        let store = app.store.scoped(to: patient.id)
        // The stamp before the events: a change between the two reads makes the page's stream refresh at once.
        let stamp = try await store.outcomeStamp(from: day.start, to: day.end)
        let events = try await store.events(matching: EventQuery(from: day.start, to: day.end))
        let undos = try await store.outcomeUndos(from: day.start, to: day.end)
        let model = TodayPage(
            patient: patient,
            day: day,
            events: events,
            undos: undos,
            now: app.now(),
            zone: app.store.bridgeZone,
            shown: ShownTime(user: context.session?.user, bridgeZone: app.store.bridgeZone)
        )
        return app.pages.page(
            title: "\(patient.name): \(day.label(zone: app.store.bridgeZone))",
            template: "today",
            content: model.context(error: error),
            session: context.session,
            status: status,
            live: "/patients/\(patient.id)/live?day=\(day.key)&since=\(stamp)"
        )
    }

    /// The patient (checked by the middleware) and the day asked for (`?day=`, else today).
    private func target(
        _ request: Request,
        context: WebContext,
        day text: String? = nil
    ) async throws
        -> (Patient, CalendarDay)
    {
        let patient = try await app.patient(context)
        let zone = app.store.bridgeZone
        guard let text = text ?? request.uri.queryParameters["day"].map(String.init) else {
            return (patient, CalendarDay(containing: app.now(), zone: zone))
        }
        guard let day = CalendarDay(key: text, zone: zone) else {
            throw WebError(.badRequest, "'\(text)' is not a day; use YYYY-MM-DD.")
        }
        return (patient, day)
    }

    private func record(_ request: Request, context: WebContext) async throws -> Response {
        let (form, session) = try await FormBody.checked(request, context: context)
        let (patient, day) = try await target(request, context: context, day: form["day"] ?? "")
        guard let taskID = form["task"], let occurrence = form["occurrence"].flatMap(Int.init),
            let action = form["action"]
        else { throw WebError(.badRequest, "The form is missing the task, the occurrence or the action.") }
        let store = app.store.scoped(to: patient.id)
        let events = try await store.events(matching: EventQuery(from: day.start, to: day.end, taskIDs: [taskID]))
        guard let event = events.first(where: { $0.occurrence == occurrence }) else {
            throw WebError(.notFound, "That event is not on \(day.label(zone: store.bridgeZone)).")
        }
        let now = app.now()
        guard event.start <= now.addingTimeInterval(CareStore.futureTolerance) else {
            throw WebError(
                .conflict,
                "\(event.title) is not due yet; it can be completed from "
                    + "\(ShownTime(user: session.user, bridgeZone: store.bridgeZone).time(event.start, reference: event.timeZone))."
            )
        }
        guard !(event.kind == .assessment && event.answer == nil) else {
            throw WebError(.conflict, "\(event.title) is completed by the device's reading.")
        }
        // Inside the event's window: the outcome belongs to the event's day, whenever it is recorded.
        let at = min(max(now, event.start), event.end.addingTimeInterval(-1))
        let author = session.user.id
        do {
            switch action {
            case "done":
                try await store.complete(
                    taskID: taskID,
                    occurrence: occurrence,
                    at: at,
                    entry: Completion(author: author),
                    now: now
                )
            case "notdone":
                guard let reason = form["reason"] else { throw WebError(.badRequest, "Say why it was not done.") }
                try await store.complete(
                    taskID: taskID,
                    occurrence: occurrence,
                    at: at,
                    entry: Completion(notDoneReason: reason, author: author),
                    now: now
                )
            case "answer":
                try await store.complete(
                    taskID: taskID,
                    occurrence: occurrence,
                    at: at,
                    entry: Completion(answer: form["answer"] ?? "", note: form["note"], author: author),
                    now: now
                )
            case "undo":
                try await store.uncomplete(taskID: taskID, occurrence: occurrence, at: at, author: author, now: now)
            default:
                throw WebError(.badRequest, "Unknown action '\(action)'.")
            }
        } catch let error as CareStoreError where error.code == .invalidAnswer {
            return try await page(request, context: context, error: error.message, status: .unprocessableContent)
        }
        app.logger.info(
            "care app: \(author) recorded \(action) for \(taskID) #\(occurrence) of \(patient.id) on \(day.key)"
        )
        let anchor = TodayPage.anchor(task: taskID, occurrence: occurrence)
        return .redirect(to: "/patients/\(patient.id)/today?day=\(day.key)#event-\(anchor)", type: .normal)
    }

    /// Server-Sent Events for a Today page (`?day=` and the `since=` stamp it was rendered with): `change` when
    /// that patient's day changed — at once if it changed since the page was rendered, then after each store
    /// change that moved its stamp — until the page closes or the server stops. Writes for other patients or
    /// other days wake no page.
    private func live(_ request: Request, context: WebContext) async throws -> Response {
        let (patient, day) = try await target(request, context: context)
        let since = request.uri.queryParameters["since"].flatMap { Int(String($0)) }
        let stream = app.feed.subscribe()
        let store = app.store
        let stamps = app.stamps
        let logger = app.logger
        // Read after subscribing: a change from here on is either in this stamp or a tick of the stream.
        let initial = try await store.scoped(to: patient.id).outcomeStamp(from: day.start, to: day.end)
        return Response(
            status: .ok,
            headers: [.contentType: "text/event-stream", .cacheControl: "no-store"],
            body: ResponseBody { writer in
                try await writer.write(ByteBuffer(string: "retry: 2000\n: listening\n\n"))
                var last = initial
                if since != last {
                    try await writer.write(ByteBuffer(string: "event: change\ndata: \(last)\n\n"))
                }
                for await version in stream {
                    let stamp: Int
                    do {
                        stamp = try await stamps.stamp(patient: patient.id, day: day, version: version, store: store)
                    } catch {
                        logger.warning("live updates for \(patient.id): \(error)")
                        continue
                    }
                    guard stamp != last else { continue }
                    last = stamp
                    try await writer.write(ByteBuffer(string: "event: change\ndata: \(stamp)\n\n"))
                }
                try await writer.finish(nil)
            }
        )
    }
}

/// The Today page as JSON: the day's events with their outcomes.
struct TodayJSON: Encodable {
    struct Event: Encodable {
        var id: String
        var task: String
        var title: String
        var kind: String
        var start: Date
        var end: Date
        var completed: Bool
        var notDoneReason: String?
        var author: String?
        var values: [Value]
    }

    struct Value: Encodable {
        /// nil for a LO/HI reading without a limit (the comparator says which).
        var value: Double?
        var unit: String
        var text: String?
        var measuredAt: Date
        var comparator: String?
    }

    var patient: String
    var day: String
    var events: [Event]

    init(patient: Patient, day: CalendarDay, events: [CareEvent]) {
        self.patient = patient.id
        self.day = day.key
        self.events = events.map { event in
            Event(
                id: event.id,
                task: event.taskID,
                title: event.title,
                kind: event.kind.rawValue,
                start: event.start,
                end: event.end,
                completed: event.isCompleted,
                notDoneReason: event.outcome?.notDoneReason,
                author: event.outcome?.author,
                values: (event.outcome?.values ?? []).map {
                    Value(
                        value: $0.value.isFinite ? $0.value : nil,
                        unit: $0.unit.rawValue,
                        text: $0.text,
                        measuredAt: $0.measuredAt,
                        comparator: $0.comparator?.rawValue
                    )
                }
            )
        }
    }
}
