import BridgeFoundation
public import CareWeb
import HTTPTypes
public import Hummingbird
import HummingbirdCore
public import Logging
import NIOCore
public import ServiceLifecycle

/// The hub's HTTP(S) side: `POST /sync/v1/batches` with a bridge's client certificate or bearer token, `GET
/// /health`, `GET /metrics` (``HubMetrics``) and the care team's dashboard (``CareTeamDashboard``: `/login`,
/// `/overview`).
///
/// A batch is parsed, its bridge found by its certificate's fingerprint or its token's hash, and handed to ``HubStore/receive(_:from:)``, which
/// owns the rules. Answers are JSON: 200 `{"received", "lastSequence"}`; 400 (malformed), 401 (no or unknown
/// token), 403 (a patient the bridge is not enrolled for; nothing stored), 503 (the database is unreachable: the
/// bridge retries), each with `{"error": reason}`. Logs name the bridge and patients, never the token.
public struct HubServer: Sendable {
    public let store: HubStore
    public let configuration: WebConfiguration
    public let metrics: HubMetrics
    /// The care team's dashboard (sign-in and the overview across every bridge's patients); nil: sync only.
    public let dashboard: CareTeamDashboard?
    /// The TLS handshakes the hub refused: logged once per peer and window, each counted in ``metrics``
    /// (`carebridge_hub_tls_refused_total{reason}`).
    public let refusals: TLSRefusalLog
    let logger: Logger

    /// The largest batch body taken.
    public static let maximumBody = 16 << 20

    public init(
        store: HubStore,
        configuration: WebConfiguration,
        metrics: HubMetrics = HubMetrics(),
        dashboard: CareTeamDashboard? = nil,
        clock: any Clock<Duration> = ContinuousClock(),
        logger: Logger
    ) {
        self.store = store
        self.configuration = configuration
        self.metrics = metrics
        self.dashboard = dashboard
        self.logger = logger
        refusals = TLSRefusalLog(clock: clock, logger: logger) { metrics.tlsRefused($0) }
    }

    /// The router: the sync endpoint, the health check and the metrics (Prometheus text), and the dashboard when
    /// there is one, every answer counted.
    public func router() -> Router<WebContext> {
        let router = Router(context: WebContext.self)
        router.add(middleware: HubRequestMetrics(metrics: metrics))
        router.get("health") { _, _ in response(.ok, ["status": .string("ok")]) }
        router.get("metrics") { _, _ in await scrape() }
        router.post("sync/v1/batches") { request, context in await sync(request, context: context) }
        dashboard?.add(to: router)
        return router
    }

    /// The application as a service; `onListening` gets the bound address (`--listen 127.0.0.1:0`).
    /// - Throws: ``WebStartError`` when the TLS files cannot be used.
    public func service(onListening: @escaping @Sendable (String) async -> Void = { _ in }) throws -> any Service {
        let configuration = configuration
        return Application(
            router: router(),
            server: try configuration.serverBuilder(refusals: refusals),
            configuration: ApplicationConfiguration(
                address: .hostname(configuration.host, port: configuration.port),
                serverName: nil
            ),
            onServerRunning: { channel in await onListening(configuration.url(boundPort: channel.localAddress?.port)) },
            logger: logger
        )
    }

    func sync(_ request: Request, context: WebContext) async -> Response {
        do throws(HubError) {
            let bridge = try await authenticate(request, context: context)
            let body: ByteBuffer
            do {
                body = try await request.body.collect(upTo: Self.maximumBody)
            } catch {
                throw HubError(.malformed, "the batch is larger than \(Self.maximumBody) bytes, or was cut off")
            }
            let batch = try SyncBatch(bytes: Array(body.readableBytesView))
            do throws(HubError) {
                let receipt = try await store.receive(batch, from: bridge)
                metrics.accepted(batch, changes: receipt.changes.count)
                return response(.ok, receipt.json.objectValue ?? [:])
            } catch {
                logger.warning(
                    "batch refused",
                    metadata: ["bridge": "\(bridge.name)", "error": "\(error.message)"]
                )
                throw error
            }
        } catch {
            if error.code == .database {
                metrics.databaseFailed()
                logger.error("sync failed", metadata: ["error": "\(error)"])
            } else if error.code != .forbidden {
                logger.notice("sync refused", metadata: ["error": "\(error.message)"])
            }
            return response(Self.status(of: error.code), ["error": .string(error.message)])
        }
    }

    /// The bridge a request comes from: by the client certificate the TLS handshake checked (`--client-ca`),
    /// else by its bearer token.
    /// - Throws: ``HubError`` `.unauthenticated` when neither names an enrolled bridge: a certificate a later
    ///   enrolment of its bridge replaced is refused like one never enrolled.
    func authenticate(_ request: Request, context: WebContext) async throws(HubError) -> HubBridge {
        if let fingerprint = await context.clientCertificateFingerprint() {
            guard let bridge = try await store.bridge(certificateFingerprint: fingerprint) else {
                throw HubError(
                    .unauthenticated,
                    "the client certificate (SHA-256 \(fingerprint.prefix(16))…) belongs to no enrolled bridge: "
                        + "it was replaced by a later enrolment, or never enrolled"
                )
            }
            return bridge
        }
        guard let header = request.headers[.authorization], header.hasPrefix("Bearer "),
            case let token = HubToken(text: String(header.dropFirst("Bearer ".count))), !token.text.isEmpty
        else {
            throw HubError(
                .unauthenticated,
                "no client certificate and no bearer token (Authorization: Bearer <the bridge's token>)"
            )
        }
        guard let bridge = try await store.bridge(token: token) else {
            throw HubError(.unauthenticated, "the token belongs to no enrolled bridge")
        }
        return bridge
    }

    /// `GET /metrics`: the per-bridge gauges read from the database now, then every metric as Prometheus text
    /// (the counters also when PostgreSQL does not answer).
    func scrape() async -> Response {
        do {
            metrics.record(try await store.status())
        } catch {
            metrics.databaseFailed()
            logger.warning("metrics without the bridges' gauges", metadata: ["error": "\(error)"])
        }
        return Response(
            status: .ok,
            headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: metrics.exposition))
        )
    }

    /// The HTTP status a refusal answers with.
    static func status(of code: HubError.Code) -> HTTPResponse.Status {
        switch code {
        case .malformed, .invalid: .badRequest
        case .unauthenticated: .unauthorized
        case .forbidden: .forbidden
        case .database, .configuration: .serviceUnavailable
        }
    }

    func response(_ status: HTTPResponse.Status, _ object: JSONObject) -> Response {
        Response(
            status: status,
            headers: [.contentType: "application/json"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: JSONValue.object(object).serialized()))
        )
    }
}

extension HubServer {
    /// The services of `carebridge hub serve`: the database client (``HubPrimary``) first (so it is shut down last),
    /// the log of refused TLS handshakes (its last counts logged once the server is down), then the application,
    /// which migrates the schema before it listens.
    public func services(onListening: @escaping @Sendable (String) async -> Void) throws -> [any Service] {
        [
            store.primary, refusals,
            MigratedApplication(store: store, application: try service(onListening: onListening)),
        ]
    }
}

/// Migrates the hub's schema, then runs the application: a hub never answers a bridge on an old schema.
struct MigratedApplication: Service {
    let store: HubStore
    let application: any Service

    func run() async throws {
        try await store.migrate()
        try await application.run()
    }
}
