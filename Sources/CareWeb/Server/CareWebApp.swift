import CarePlan
public import CareStore
public import Foundation
public import Hummingbird
import HummingbirdCore
public import Logging
public import ServiceLifecycle

/// The care app: one value holding what every route needs (the store, the clock, the password hasher, the login
/// throttle, the change feed and the pages), and the Hummingbird application built from it. The store owns the
/// rules; this layer reads forms, checks who may do what, and renders.
public struct CareWebApp: Sendable {
    public let store: CareStore
    public let configuration: WebConfiguration
    public let feed: ChangeFeed
    /// Each open Today page's view of its day, compared after every change.
    let stamps = LiveStamps()
    /// The patient list's reads, shared until the store changes.
    let patientList: PatientListCache
    /// Sign-in, sessions and CSRF over the store's users (shared with the hub's dashboard).
    let signIn: WebSignIn
    let logger: Logger
    /// The wall clock (injected: tests move it to expire sessions and throttles).
    let now: @Sendable () -> Date
    var hasher: PasswordHasher { signIn.hasher }
    var pages: PageRenderer { signIn.pages }
    /// The one-time setup of a store without users (`/setup`); nil when the store has users.
    let setup: SetupGate?
    /// The TLS handshakes the server refused, logged once per peer and window (a service of ``services(onListening:)``).
    public let refusals: TLSRefusalLog

    public init(
        store: CareStore,
        configuration: WebConfiguration,
        logger: Logger,
        clock: any Clock<Duration> = ContinuousClock(),
        now: @escaping @Sendable () -> Date = { Date() },
        setup: SetupGate? = nil
    ) throws(CareStoreError) {
        self.store = store
        self.setup = setup
        self.configuration = configuration
        self.logger = logger
        self.now = now
        signIn = WebSignIn(users: store, configuration: configuration, logger: logger, now: now)
        patientList = PatientListCache(monitor: try store.changeMonitor())
        feed = ChangeFeed(
            monitor: try store.changeMonitor(),
            interval: configuration.changePollInterval,
            clock: clock,
            logger: logger
        )
        refusals = TLSRefusalLog(clock: clock, now: now, logger: logger)
    }

    /// The routes: sign-in (and the one-time setup), the patient list, each patient's screens with their forms,
    /// live updates and JSON.
    public func router() -> Router<WebContext> {
        let router = Router(context: WebContext.self)
        signIn.add(to: router)
        AssetRoutes.add(to: router)
        if let setup { SetupRoutes(app: self, gate: setup).add(to: router) }
        let signedIn = router.group().add(middleware: RequireLoginMiddleware())
        DashboardRoutes(app: self).add(to: signedIn)
        OverviewRoutes(source: store, pages: pages, zone: store.bridgeZone, now: now, logger: logger).add(to: signedIn)
        SettingsRoutes(app: self).add(to: signedIn)
        let patient = signedIn.group("patients/:patient").add(middleware: PatientAccessMiddleware())
        TodayRoutes(app: self).add(to: patient)
        PatientScreensRoutes(app: self).add(to: patient)
        ReadingsRoutes(app: self).add(to: patient)
        DevicesRoutes(app: self).add(to: patient)
        let patientAPI = signedIn.group("api/patients/:patient").add(middleware: PatientAccessMiddleware())
        TodayRoutes(app: self).addAPI(to: patientAPI)
        CalendarRoutes(app: self).addAPI(to: patientAPI)
        return router
    }

    /// The services to run: the log of refused TLS handshakes, the HTTP (or HTTPS) application, then the change
    /// feed. A service group shuts its services down last first, so the feed ends the open live streams before the
    /// server waits for its connections to finish, and the refusals still counted are logged once the server is
    /// down.
    /// - Parameter onListening: called with the bound address once the server listens (`--listen :0`).
    public func services(onListening: @escaping @Sendable (String) async -> Void = { _ in }) throws -> [any Service] {
        [refusals, try application(onListening: onListening), feed]
    }

    func application(
        onListening: @escaping @Sendable (String) async -> Void
    ) throws -> some ApplicationProtocol & Service {
        let server = try configuration.serverBuilder(refusals: refusals)
        return Application(
            router: router(),
            server: server,
            configuration: ApplicationConfiguration(
                address: .hostname(configuration.host, port: configuration.port),
                serverName: nil
            ),
            onServerRunning: { channel in
                await onListening(configuration.url(boundPort: channel.localAddress?.port))
            },
            logger: logger
        )
    }

    /// The patient a `/patients/:patient/…` route names (the access middleware has checked the user may see it).
    func patient(_ context: WebContext) async throws -> Patient {
        let id = try context.parameters.require("patient")
        guard let patient = try await store.patients().first(where: { $0.id == id }) else {
            throw WebError(.notFound, "There is no patient '\(id)'.")
        }
        return patient
    }
}

/// The app could not start (TLS files, the listen address); the message says what and where.
public struct WebStartError: Error, CustomStringConvertible, Sendable {
    public var description: String

    public init(_ description: String) {
        self.description = description
    }
}
