public import CareStore
public import Foundation
public import Hummingbird
public import Logging

/// Sign-in for a care app over any ``CareUserDirectory``: the password check (bcrypt off the cooperative pool,
/// throttled per name and address), the session cookie, the CSRF token of every form, the error pages. The
/// bridge's care app (``CareWebApp``) and the hub's dashboard (``CareTeamDashboard``) each hold one, so both sign
/// people in the same way.
public struct WebSignIn: Sendable {
    /// Where users and sessions are kept.
    public let users: any CareUserDirectory
    public let configuration: WebConfiguration
    let hasher: PasswordHasher
    let throttle: LoginThrottle
    let pages: PageRenderer
    let logger: Logger
    /// The wall clock (injected: tests move it to expire sessions and throttles).
    let now: @Sendable () -> Date

    /// - Parameters:
    ///   - users: the users and sessions.
    ///   - configuration: session lifetimes, the password cost, TLS (cookies get `Secure`).
    ///   - navigation: the links of the page header.
    ///   - logger: sign-ins and failed attempts (names and addresses, never a password).
    ///   - now: the wall clock.
    public init(
        users: any CareUserDirectory,
        configuration: WebConfiguration,
        navigation: PageNavigation = .bridge,
        logger: Logger,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.users = users
        self.configuration = configuration
        self.logger = logger
        self.now = now
        hasher = PasswordHasher(cost: configuration.passwordCost)
        throttle = LoginThrottle()
        pages = PageRenderer(navigation: navigation)
    }

    /// Adds the session middleware (every route of `router` after it sees the session) and the sign-in and
    /// sign-out routes.
    public func add(to router: some RouterMethods<WebContext>) {
        _ = router.add(middleware: SessionMiddleware(signIn: self))
        AuthRoutes(signIn: self).add(to: router)
    }

    /// The page for a refused request: HTML for pages, JSON for the API.
    func errorPage(_ error: WebError, request: Request, context: WebContext) -> Response {
        if request.uri.path.hasPrefix("/api/") {
            return JSONBody.response(["error": error.message], status: error.status)
        }
        return pages.page(
            title: "\(error.status.code) \(error.status.reasonPhrase)",
            template: "error",
            content: ["message": error.message, "status": "\(error.status.code)", "signedOut": context.session == nil],
            session: context.session,
            status: error.status
        )
    }

    /// The page for a store that could not answer: 500, logged with the store's message (never shown).
    func storeFailed(_ error: any Error, request: Request, context: WebContext) -> Response {
        context.logger.error("store error: \((error as? CareStoreError)?.message ?? "\(error)")")
        return errorPage(
            WebError(.internalServerError, "The care store could not be read; try again in a moment."),
            request: request,
            context: context
        )
    }
}
