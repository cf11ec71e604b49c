import CareStore
import Foundation
import HTTPTypes
public import Hummingbird
import Logging

/// Finds the request's session from its cookie (by the token's hash), extending an active session's idle
/// timeout; and puts the security headers on every response.
public struct SessionMiddleware: RouterMiddleware {
    public typealias Context = WebContext

    static let cookieName = "cb_session"

    let app: CareWebApp

    public func handle(
        _ request: Request,
        context: WebContext,
        next: (Request, WebContext) async throws -> Response
    ) async throws -> Response {
        var context = context
        if let token = request.cookies[Self.cookieName]?.value, !token.isEmpty {
            let now = app.now()
            context.session = try await app.store.session(
                tokenHash: SessionToken.hash(token),
                at: now,
                extendTo: now.addingTimeInterval(app.configuration.idleTimeout),
                limit: app.configuration.sessionLimit
            )
        }
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as WebError {
            response = app.errorPage(error, request: request, context: context)
        } catch let error as CareStoreError {
            context.logger.error("store error: \(error.message)")
            response = app.errorPage(
                WebError(.internalServerError, "The care store could not be read; try again in a moment."),
                request: request,
                context: context
            )
        }
        if response.headers[.contentSecurityPolicy] == nil {
            response.headers[.contentSecurityPolicy] =
                "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; form-action 'self'; base-uri 'none'"
        }
        response.headers[.xContentTypeOptions] = "nosniff"
        response.headers[HTTPField.Name("Referrer-Policy")!] = "same-origin"
        if response.headers[.cacheControl] == nil { response.headers[.cacheControl] = "no-store" }
        return response
    }
}

/// Sends a request without a live session to the login page (GET) or refuses it (anything else).
public struct RequireLoginMiddleware: RouterMiddleware {
    public typealias Context = WebContext

    public func handle(
        _ request: Request,
        context: WebContext,
        next: (Request, WebContext) async throws -> Response
    ) async throws -> Response {
        guard context.session != nil else {
            if request.method == .get, !request.uri.path.hasPrefix("/api/") {
                let target = request.uri.path + (request.uri.query.map { "?" + $0 } ?? "")
                return .redirect(to: "/login?next=" + LoginPage.escapeQuery(target), type: .normal)
            }
            throw WebError(.unauthorized, "Your session has ended; sign in again.")
        }
        return try await next(request, context)
    }
}

/// Refuses every route under `/patients/:patient` (and its API twin) to a user not linked to that patient.
public struct PatientAccessMiddleware: RouterMiddleware {
    public typealias Context = WebContext

    public func handle(
        _ request: Request,
        context: WebContext,
        next: (Request, WebContext) async throws -> Response
    ) async throws -> Response {
        guard let user = context.session?.user, let patientID = context.parameters.get("patient"),
            user.maySee(patientID: patientID)
        else {
            throw WebError(.forbidden, "You are not linked to this patient.")
        }
        return try await next(request, context)
    }
}
