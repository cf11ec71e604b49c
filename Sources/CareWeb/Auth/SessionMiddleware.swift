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

    let signIn: WebSignIn

    public init(signIn: WebSignIn) {
        self.signIn = signIn
    }

    public func handle(
        _ request: Request,
        context: WebContext,
        next: (Request, WebContext) async throws -> Response
    ) async throws -> Response {
        var context = context
        if let token = request.cookies[Self.cookieName]?.value, !token.isEmpty {
            let now = signIn.now()
            do {
                context.session = try await signIn.users.session(
                    tokenHash: SessionToken.hash(token),
                    at: now,
                    extendTo: now.addingTimeInterval(signIn.configuration.idleTimeout),
                    limit: signIn.configuration.sessionLimit
                )
            } catch {
                return signIn.storeFailed(error, request: request, context: context)
            }
        }
        let calendar = request.method == .get && request.uri.path.hasSuffix(".ics")
        var response: Response
        do {
            if calendar, context.session == nil, let authorization = request.headers[.authorization] {
                context.session = try await basicSession(authorization, context: context)
            }
            response = try await next(request, context)
        } catch let error as WebError {
            response = signIn.errorPage(error, request: request, context: context)
        } catch  where !(error is any HTTPResponseError) {
            response = signIn.storeFailed(error, request: request, context: context)
        }
        if calendar, response.status == .unauthorized {
            response.headers[.wwwAuthenticate] = "Basic realm=\"CareBridge\", charset=\"UTF-8\""
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

extension SessionMiddleware {
    /// A session for one calendar request signed in with HTTP Basic (a calendar app cannot keep a cookie): the care
    /// app's user name and password, checked and throttled as the sign-in form's are. Nothing is stored.
    /// - Throws: ``WebError`` 401 for a wrong or malformed one, 429 while throttled.
    func basicSession(_ authorization: String, context: WebContext) async throws -> AppSession {
        guard authorization.lowercased().hasPrefix("basic "),
            let decoded = Data(base64Encoded: String(authorization.dropFirst(6)).trimmingCharacters(in: .whitespaces)),
            let pair = String(data: decoded, encoding: .utf8), let colon = pair.firstIndex(of: ":")
        else {
            throw WebError(.unauthorized, "Sign in with the care app's user name and password.")
        }
        let username = String(pair[..<colon])
        switch try await signIn.checkPassword(
            username: username,
            password: String(pair[pair.index(after: colon)...]),
            address: context.clientAddress
        ) {
        case .user(let user):
            let now = signIn.now()
            return AppSession(tokenHash: Data(), user: user, csrfToken: "", createdDate: now, expiresDate: now)
        case .throttled:
            throw WebError(.tooManyRequests, "Too many wrong passwords; try again later.")
        case .wrong:
            throw WebError(.unauthorized, "The user name or the password is wrong.")
        }
    }
}

/// Sends a request without a live session to the login page (GET) or refuses it (anything else).
public struct RequireLoginMiddleware: RouterMiddleware {
    public typealias Context = WebContext

    public init() {}

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

    public init() {}

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
