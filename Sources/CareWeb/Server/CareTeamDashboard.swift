public import CareStore
public import Foundation
public import Hummingbird
public import Logging

/// The care team's dashboard on its own, for a store that is not a bridge's (the hub's PostgreSQL): the care
/// app's sign-in, sessions, CSRF and throttling over ``WebSignIn``, and the overview across the patients each user
/// may see with each patient's record and open alerts (``CareTeamSource``). The bridge's ``CareWebApp`` serves the same overview beside its other
/// screens.
public struct CareTeamDashboard: Sendable {
    let signIn: WebSignIn
    let overview: OverviewRoutes

    /// - Parameters:
    ///   - users: the dashboard's users and sessions.
    ///   - overview: where the overview's rows and each patient's record come from, and where an alert is
    ///     acknowledged.
    ///   - configuration: session lifetimes, the password cost, TLS.
    ///   - zone: the zone times are shown in for a user without their own.
    ///   - logger: sign-ins and failed attempts.
    ///   - now: the wall clock (tests move it).
    public init(
        users: any CareUserDirectory,
        overview: any CareTeamSource,
        configuration: WebConfiguration,
        zone: TimeZone,
        logger: Logger,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        signIn = WebSignIn(users: users, configuration: configuration, navigation: .hub, logger: logger, now: now)
        self.overview = OverviewRoutes(source: overview, pages: signIn.pages, zone: zone, now: now, logger: logger)
    }

    /// Adds the dashboard to `router` in a group of its own (the router's other routes do not see sessions):
    /// `/login`, `/logout`, the assets, `/` (to the overview), `/overview` and each patient's `/overview/:patient`,
    /// `/overview/:patient/record` and `/overview/:patient/acknowledge`.
    public func add(to router: Router<WebContext>) {
        let group = router.group()
        signIn.add(to: group)
        AssetRoutes.add(to: group)
        let signedIn = group.group().add(middleware: RequireLoginMiddleware())
        signedIn.get("/") { _, _ in Response.redirect(to: "/overview", type: .normal) }
        overview.add(to: signedIn)
    }
}
