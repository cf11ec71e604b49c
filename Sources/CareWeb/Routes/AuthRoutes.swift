import CareStore
import Foundation
import Hummingbird
import Logging

/// Sign in and out. The sign-in form carries a token that must equal its cookie's (no session exists yet to hold
/// one); failed attempts are throttled per name and per address; a password is checked off the event loops.
struct AuthRoutes {
    let signIn: WebSignIn

    static let loginCookie = "cb_login"

    func add(to router: some RouterMethods<WebContext>) {
        router.get("login") { request, context -> Response in
            if context.session != nil { return .redirect(to: "/", type: .normal) }
            return loginPage(next: request.uri.queryParameters["next"].map(String.init), context: context)
        }
        router.post("login") { request, context in try await login(request, context: context) }
        router.post("logout") { request, context -> Response in
            let (_, session) = try await FormBody.checked(request, context: context)
            try await signIn.users.endSession(tokenHash: session.tokenHash)
            var response = Response.redirect(to: "/login", type: .normal)
            response.setCookie(cookie(SessionMiddleware.cookieName, "", maxAge: 0))
            return response
        }
    }

    private func loginPage(
        next: String?,
        context: WebContext,
        username: String = "",
        error: String? = nil,
        status: HTTPResponse.Status = .ok
    ) -> Response {
        let token = SessionToken.make()
        var content: [String: Any] = ["loginToken": token, "next": LoginPage.safeNext(next), "username": username]
        if let error { content["error"] = error }
        var response = signIn.pages.page(
            title: "Sign in",
            template: "login",
            content: content,
            session: nil,
            status: status
        )
        response.setCookie(cookie(Self.loginCookie, token, maxAge: 3600, path: "/login"))
        return response
    }

    private func login(_ request: Request, context: WebContext) async throws -> Response {
        let form = try await FormBody.read(request, context: context)
        let next = form["next"]
        guard let token = form["csrf"], let formCookie = request.cookies[Self.loginCookie]?.value,
            SessionToken.equal(token, formCookie)
        else {
            return loginPage(
                next: next,
                context: context,
                error: "The sign-in form had expired; please sign in again.",
                status: .forbidden
            )
        }
        let username = (form["username"] ?? "").trimmingCharacters(in: .whitespaces)
        let password = form.fields["password"] ?? ""
        let user: CareUser
        switch try await signIn.checkPassword(username: username, password: password, address: context.clientAddress) {
        case .user(let match): user = match
        case .throttled(let wait):
            let minutes = Int((wait / 60).rounded(.up))
            var response = loginPage(
                next: next,
                context: context,
                username: username,
                error: "Too many wrong passwords. Try again in \(minutes) minute\(minutes == 1 ? "" : "s").",
                status: .tooManyRequests
            )
            response.headers[.retryAfter] = "\(Int(wait.rounded(.up)))"
            return response
        case .wrong:
            return loginPage(
                next: next,
                context: context,
                username: username,
                error: "The user name or the password is wrong.",
                status: .unauthorized
            )
        }
        let now = signIn.now()
        let sessionToken = SessionToken.make()
        try await signIn.users.startSession(
            userID: user.id,
            tokenHash: SessionToken.hash(sessionToken),
            csrfToken: SessionToken.make(),
            at: now,
            expires: now.addingTimeInterval(signIn.configuration.idleTimeout)
        )
        signIn.logger.info("care app: \(user.id) signed in from \(context.clientAddress)")
        var response = Response.redirect(to: LoginPage.safeNext(next), type: .normal)
        response.setCookie(cookie(SessionMiddleware.cookieName, sessionToken, maxAge: nil))
        response.setCookie(cookie(Self.loginCookie, "", maxAge: 0, path: "/login"))
        return response
    }

    /// `HttpOnly`, `SameSite=Strict`, `Secure` under TLS.
    private func cookie(_ name: String, _ value: String, maxAge: Int?, path: String = "/") -> Cookie {
        Cookie(
            name: name,
            value: value,
            maxAge: maxAge,
            path: path,
            secure: signIn.configuration.isSecure,
            httpOnly: true,
            sameSite: .strict
        )
    }
}
