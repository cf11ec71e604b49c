import CareStore
import Foundation
import Hummingbird
import Logging
import NIOPosix

/// `/setup?token=…`: the first visit to a care app whose store has no users creates the admin account. The token
/// (printed once by `carebridge serve`, its hash in ``SetupGate``) stands in for a session's CSRF token; once the
/// account exists it stops working and `/setup` answers 404.
struct SetupRoutes {
    let app: CareWebApp
    let gate: SetupGate

    func add(to router: Router<WebContext>) {
        router.get("setup") { request, context -> Response in
            let token = request.uri.queryParameters["token"].map(String.init) ?? ""
            try await check(token)
            return form(token: token, context: context)
        }
        router.post("setup") { request, context in try await create(request, context: context) }
    }

    /// Refuses a finished setup (404) and a wrong token (403).
    private func check(_ token: String) async throws {
        guard gate.isOpen, try await !app.store.hasUsers() else {
            throw WebError(.notFound, "The care app is set up; sign in.")
        }
        guard gate.accepts(token) else {
            throw WebError(.forbidden, "This setup link is not valid. Use the one `carebridge serve` printed.")
        }
    }

    private func form(
        token: String,
        context: WebContext,
        fields: [String: String] = [:],
        error: String? = nil,
        status: HTTPResponse.Status = .ok
    ) -> Response {
        var content: [String: Any] = [
            "setupToken": token, "username": fields["username"] ?? "", "name": fields["name"] ?? "",
            "minimum": PasswordHasher.minimumLength,
        ]
        if let error { content["error"] = error }
        return app.pages.page(title: "Set up", template: "setup", content: content, session: nil, status: status)
    }

    private func create(_ request: Request, context: WebContext) async throws -> Response {
        let form = try await FormBody.read(request, context: context)
        let token = form["token"] ?? ""
        try await check(token)
        let username = (form["username"] ?? "").trimmingCharacters(in: .whitespaces)
        let name = (form["name"] ?? "").trimmingCharacters(in: .whitespaces)
        let password = form.fields["password"] ?? ""
        func refuse(_ message: String) -> Response {
            self.form(
                token: token,
                context: context,
                fields: ["username": username, "name": name],
                error: message,
                status: .unprocessableContent
            )
        }
        if let problem = PasswordHasher.problem(with: password) { return refuse(Self.sentence(problem)) }
        guard password == form.fields["again"] else { return refuse("The two passwords differ.") }
        guard gate.claim(token) else {
            throw WebError(.conflict, "Another visit is setting the care app up; reload in a moment.")
        }
        var created = false
        defer { gate.finish(created: created) }
        let hasher = app.hasher
        let hash = try await NIOThreadPool.singleton.runIfActive { hasher.hash(password) }
        do {
            guard try await !app.store.hasUsers() else { throw WebError(.notFound, "The care app is set up; sign in.") }
            try await app.store.addUser(
                CareUser(id: username, displayName: name, role: .admin, patientIDs: [], createdDate: app.now()),
                passwordHash: hash,
                at: app.now()
            )
        } catch let error as CareStoreError where error.code == .invalidUser || error.code == .userExists {
            return refuse(Self.sentence(error.message))
        }
        created = true
        app.logger.notice("care app: set up with the admin account '\(username)'; the setup link no longer works")
        return .redirect(to: "/login", type: .normal)
    }

    static func sentence(_ text: String) -> String { ReadingsRoutes.sentence(text) }
}
