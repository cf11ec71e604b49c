import CareStore
import Foundation
import Hummingbird
import Logging

/// `/settings`: the signed-in user's own settings, today the zone the app shows their times in (stored with the
/// user; the CLI's `users set-zone` sets the same).
struct SettingsRoutes {
    let app: CareWebApp

    func add(to group: RouterGroup<WebContext>) {
        group.get("settings") { request, context in
            try page(
                context: context,
                saved: request.uri.queryParameters["saved"] == nil ? nil : try savedNotice(context)
            )
        }
        group.post("settings") { request, context in try await save(request, context: context) }
    }

    private func page(
        context: WebContext,
        chosen: String? = nil,
        saved: String? = nil,
        error: String? = nil,
        status: HTTPResponse.Status = .ok
    ) throws -> Response {
        let user = try context.requireUser()
        let current = chosen ?? user.timeZone?.identifier ?? ""
        var content: [String: Any] = [
            "displayName": user.displayName, "planZone": app.store.bridgeZone.identifier,
            "isPlanZone": current.isEmpty,
            "zones": CareUser.zoneNames.map { ["name": $0, "selected": $0 == current] as [String: Any] },
        ]
        if let saved { content["saved"] = saved }
        if let error { content["error"] = error }
        return app.pages.page(
            title: "Settings",
            template: "settings",
            content: content,
            session: context.session,
            status: status
        )
    }

    private func savedNotice(_ context: WebContext) throws -> String {
        let user = try context.requireUser()
        return
            "Saved: times are now shown in \(user.timeZone?.identifier ?? "the bridge's zone, \(app.store.bridgeZone.identifier)")."
    }

    private func save(_ request: Request, context: WebContext) async throws -> Response {
        let (form, session) = try await FormBody.checked(request, context: context)
        var zone: TimeZone?
        if let name = form["zone"] {
            do {
                zone = try CareUser.zone(named: name)
            } catch {
                return try page(
                    context: context,
                    error: ReadingsRoutes.sentence(error.message),
                    status: .unprocessableContent
                )
            }
        }
        try await app.store.setTimeZone(userID: session.user.id, zone)
        app.logger.info("care app: \(session.user.id) shows times in \(zone?.identifier ?? "the bridge's zone")")
        return .redirect(to: "/settings?saved=1", type: .normal)
    }
}
