import BridgeCore
import CarePlan
import CareStore
import Foundation
import Hummingbird
import Logging

/// `/patients/:patient/readings`: the patient's readings by type and period, typed entry of a reading (read as
/// `carebridge ingest` reads it), and for the care team the release or deletion of a quarantined reading, each
/// with a reason and recorded with who did it. ``PatientAccessMiddleware`` has checked the patient.
struct ReadingsRoutes {
    let app: CareWebApp

    func add(to group: RouterGroup<WebContext>) {
        group.get("readings") { request, context in try await page(request, context: context) }
        group.post("readings") { request, context in try await enter(request, context: context) }
        group.get("readings/:sample") { _, context in try await review(context: context) }
        group.post("readings/:sample/release") { request, context in
            try await decide(request, context: context, action: .release)
        }
        group.post("readings/:sample/delete") { request, context in
            try await decide(request, context: context, action: .delete)
        }
    }

    private func page(
        _ request: Request,
        context: WebContext,
        error: String? = nil,
        entry: [String: String] = [:],
        status: HTTPResponse.Status = .ok
    ) async throws -> Response {
        let user = try context.requireUser()
        let patient = try await app.patient(context)
        let zone = app.store.bridgeZone
        let now = app.now()
        let period = try DayPeriod(request, now: now, zone: zone)
        var type: QuantityType?
        if let text = request.uri.queryParameters["type"].map(String.init), !text.isEmpty {
            guard let known = QuantityType(rawValue: text) else {
                throw WebError(.badRequest, "'\(text)' is not a type of reading.")
            }
            type = known
        }
        let quarantinedOnly = request.uri.queryParameters["show"] == "quarantined"
        let query = SampleQuery(
            types: type.map { [$0] } ?? [],
            from: period.from,
            to: period.to,
            quarantine: quarantinedOnly ? .only : .included,
            limit: ReadingsPage.limit + 1
        )
        let store = app.store.scoped(to: patient.id)
        let readings = try await store.samples(matching: query)
        let reviews = try await store.sampleReviews(of: readings.filter { $0.releaseReason != nil }.map(\.id))
        let model = ReadingsPage(
            patient: patient,
            period: period,
            type: type,
            quarantinedOnly: quarantinedOnly,
            readings: readings,
            reviews: reviews,
            user: user,
            now: now,
            zone: zone,
            shown: ShownTime(user: user, bridgeZone: zone)
        )
        return app.pages.page(
            title: "\(patient.name): readings",
            template: "readings",
            content: model.context(error: error, entry: entry),
            session: context.session,
            status: status,
            live: "/patients/\(patient.id)/live"
        )
    }

    /// Typed entry: the words parsed as `carebridge ingest` parses them, the time checked as it checks `--at`
    /// (not in the future, not more than seven days ago), stored under this patient with who typed it.
    private func enter(_ request: Request, context: WebContext) async throws -> Response {
        let (form, session) = try await FormBody.checked(request, context: context)
        let patient = try await app.patient(context)
        let zone = app.store.bridgeZone
        let now = app.now()
        let entry = [
            "type": form["type"] ?? "", "reading": form["reading"] ?? "", "at": form["at"] ?? "",
            "note": form["note"] ?? "",
        ]
        func refuse(_ message: String) async throws -> Response {
            try await page(request, context: context, error: message, entry: entry, status: .unprocessableContent)
        }
        var measured = now
        if let text = form["at"] {
            guard let wall = try? WallClockTime(parsing: text) else {
                return try await refuse("'\(text)' is not a date and time; use the form's date and time fields.")
            }
            // Typed as the user reads times: in their zone (the day it lands on is then the plan's).
            measured = wall.date(in: ShownTime(user: session.user, bridgeZone: zone).zone)
        }
        var samples: [QuantitySample]
        do {
            samples = try ManualReadingText.samples(
                type: form["type"] ?? "",
                words: (form["reading"] ?? "").split(whereSeparator: \.isWhitespace).map(String.init),
                at: measured,
                note: form["note"],
                receivedAt: now
            )
        } catch {
            return try await refuse(Self.sentence(error.description))
        }
        for index in samples.indices { samples[index].metadata[ReadingsPage.enteredByKey] = session.user.id }
        let store = app.store.scoped(to: patient.id)
        if let refusal = try await timeRefusal(store, measured: measured, types: Set(samples.map(\.type)), now: now) {
            return try await refuse(refusal)
        }
        let report = try await store.recordSamples(samples, recordedAt: now)
        app.logger.info(
            "care app: \(session.user.id) typed in \(samples.count) reading(s) for \(patient.id) (\(report.inserted) new)"
        )
        let day = CalendarDay(containing: measured, zone: zone)
        let anchor = report.stored(samples[0]).id.uuidString.lowercased()
        return .redirect(
            to: "/patients/\(patient.id)/readings?from=\(day.key)&to=\(CalendarDay(containing: now, zone: zone).key)"
                + "#reading-\(anchor)",
            type: .normal
        )
    }

    /// Why a typed reading's time is refused (in the future, or more than seven days ago), or nil.
    private func timeRefusal(
        _ store: CareStore,
        measured: Date,
        types: Set<QuantityType>,
        now: Date
    ) async throws -> String? {
        do {
            try await store.checkManualReadingTime(measured, types: types, now: now, force: false)
            return nil
        } catch {
            switch error.code {
            case .futureTime: return "That time is in the future: a reading is recorded when it was measured."
            case .pastTime:
                return "That is more than seven days ago; an older reading is entered by the bridge's admin "
                    + "(carebridge ingest --at … --force)."
            default: throw error
            }
        }
    }

    /// The confirmation page of a quarantined reading: release or delete, each with a reason.
    private func review(
        context: WebContext,
        error: String? = nil,
        status: HTTPResponse.Status = .ok
    ) async throws -> Response {
        let (user, patient, stored) = try await reviewTarget(context)
        var content = ReadingsPage.row(
            stored,
            reviews: [],
            user: user,
            shown: ShownTime(user: user, bridgeZone: app.store.bridgeZone)
        )
        content["patientName"] = patient.name
        content["patientID"] = patient.id
        content["onReadings"] = true
        if let error { content["error"] = error }
        return app.pages.page(
            title: "\(patient.name): a quarantined reading",
            template: "readingReview",
            content: content,
            session: context.session,
            status: status
        )
    }

    /// The user (who must be of the care team), the patient and the live quarantined reading of that patient the
    /// route names.
    private func reviewTarget(_ context: WebContext) async throws -> (CareUser, Patient, StoredSample) {
        let user = try context.requireUser()
        guard user.mayReviewReadings else {
            throw WebError(.forbidden, "Only the care team releases or deletes a quarantined reading.")
        }
        let patient = try await app.patient(context)
        let text = try context.parameters.require("sample")
        let store = app.store
        guard let id = UUID(uuidString: text),
            let stored = try await store.sample(id: id),
            stored.deletedDate == nil, stored.patientID == patient.id, stored.sample.isQuarantined
        else { throw WebError(.notFound, "\(patient.name) has no quarantined reading '\(text)'.") }
        return (user, patient, stored)
    }

    private func decide(_ request: Request, context: WebContext, action: SampleReview.Action) async throws -> Response {
        let (form, session) = try await FormBody.checked(request, context: context)
        let (user, patient, stored) = try await reviewTarget(context)
        guard let reason = form["reason"]?.trimmingCharacters(in: .whitespacesAndNewlines), !reason.isEmpty else {
            return try await review(context: context, error: "Say why.", status: .unprocessableContent)
        }
        if action == .delete, form["confirm"] != "yes" {
            return try await review(
                context: context,
                error: "Tick \u{201C}Yes, delete this reading for good\u{201D} to delete it.",
                status: .unprocessableContent
            )
        }
        let store = app.store.scoped(to: patient.id)
        let now = app.now()
        let id = stored.id
        let by = user.id
        let done: Bool =
            switch action {
            case .release: try await store.releaseSample(id: id, reason: reason, at: now, by: by) != nil
            case .delete: try await store.deleteSample(id: id, at: now, reason: reason, by: by)
            case .assign: false
            }
        guard done else { throw WebError(.notFound, "That reading is no longer in quarantine.") }
        app.logger.info(
            "care app: \(session.user.id) \(action == .release ? "released" : "deleted") reading \(id) of \(patient.id)"
        )
        let day = CalendarDay(containing: stored.sample.start, zone: app.store.bridgeZone)
        return .redirect(to: "/patients/\(patient.id)/readings?from=\(day.key)", type: .normal)
    }

    /// A parser's message as a sentence for the page: capitalised, with a full stop.
    static func sentence(_ text: String) -> String {
        let capital = text.capitalizedFirst
        return capital.hasSuffix(".") ? capital : capital + "."
    }
}
