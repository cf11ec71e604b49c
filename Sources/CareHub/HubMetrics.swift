import CareWeb
import CoreMetrics
import Foundation
public import Prometheus

/// The hub's metrics, recorded through swift-metrics into a Prometheus registry that `GET /metrics` exposes as
/// Prometheus text (`carebridge hub serve`).
///
/// - `carebridge_hub_requests_total{path, status}`: answers by route (`/sync/v1/batches`, `/health`, `/metrics`,
///   `other`) and HTTP status;
/// - `carebridge_hub_batches_total`, `carebridge_hub_rows_total{kind}`: batches stored and their messages per kind
///   (a batch sent again counts again: these are what was accepted, not what is new);
/// - `carebridge_hub_changes_sent_total`: changes the answers carried down;
/// - `carebridge_hub_postgres_errors_total`: requests and scrapes that failed on PostgreSQL;
/// - `carebridge_hub_tls_refused_total{reason}`: TLS handshakes refused, by ``TLSRefusal/label`` (`expired`,
///   `not_yet_valid`, `other_ca`, `no_certificate`, `not_tls`, …), every one counted though the log sums up a peer's
///   repeats;
/// - `carebridge_hub_bridge_last_contact_seconds{bridge}`, `carebridge_hub_bridge_backlog{bridge}`,
///   `carebridge_hub_bridge_changes_waiting{bridge}`: per bridge, read from the database at each scrape (Unix time;
///   entries the bridge said it still held; changes it has not dealt with).
///
/// The factory is passed to every metric (no global bootstrap), so tests and several hubs in one process each
/// have their own registry.
public struct HubMetrics: Sendable {
    public let registry: PrometheusCollectorRegistry
    let factory: PrometheusMetricsFactory

    /// The routes counted by name; any other path is `other` (a scanner's paths do not make new series).
    static let routes: Set<String> = ["/sync/v1/batches", "/health", "/metrics"]

    public init(registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry()) {
        self.registry = registry
        factory = PrometheusMetricsFactory(registry: registry)
    }

    /// One answer of the hub.
    func request(path: String, status: Int) {
        let route = Self.routes.contains(path) ? path : "other"
        Counter(
            label: "carebridge_hub_requests_total",
            dimensions: [("path", route), ("status", "\(status)")],
            factory: factory
        ).increment()
    }

    /// A stored batch and its messages.
    func accepted(_ batch: SyncBatch, changes: Int) {
        Counter(label: "carebridge_hub_batches_total", factory: factory).increment()
        for kind in SyncMessage.Kind.allCases {
            let count = batch.messages.count { $0.kind == kind }
            Counter(label: "carebridge_hub_rows_total", dimensions: [("kind", kind.rawValue)], factory: factory)
                .increment(by: count)
        }
        Counter(label: "carebridge_hub_changes_sent_total", factory: factory).increment(by: changes)
    }

    /// A request or scrape that PostgreSQL failed.
    func databaseFailed() {
        Counter(label: "carebridge_hub_postgres_errors_total", factory: factory).increment()
    }

    /// A TLS handshake the hub refused.
    func tlsRefused(_ refusal: TLSRefusal) {
        Counter(label: "carebridge_hub_tls_refused_total", dimensions: [("reason", refusal.label)], factory: factory)
            .increment()
    }

    /// The per-bridge gauges, from the hub's status.
    func record(_ bridges: [HubBridgeStatus]) {
        for bridge in bridges {
            let dimensions = [("bridge", bridge.name)]
            if let contact = bridge.lastContact {
                Gauge(label: "carebridge_hub_bridge_last_contact_seconds", dimensions: dimensions, factory: factory)
                    .record(contact.timeIntervalSince1970)
            }
            if let backlog = bridge.backlog {
                Gauge(label: "carebridge_hub_bridge_backlog", dimensions: dimensions, factory: factory)
                    .record(backlog)
            }
            Gauge(label: "carebridge_hub_bridge_changes_waiting", dimensions: dimensions, factory: factory)
                .record(bridge.changesWaiting)
        }
    }

    /// The registry as Prometheus text.
    var exposition: String { registry.emitToString() }
}
