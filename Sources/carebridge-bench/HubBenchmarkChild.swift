import CareHub
import CareWeb
import Foundation
import Logging
import PostgresNIO
import ServiceLifecycle

/// The hub of the hub benchmark, in a process of its own (its CPU and memory apart from the simulated bridges'):
/// `carebridge-bench --hub-child DATABASE PASSWORD-FILE [CERT KEY]` runs what `carebridge hub serve` runs (the
/// same ``HubServer`` services: migrate, then listen on a free loopback port, HTTPS with a certificate and key)
/// and prints its URL. Logs are dropped.
func runHubChild(arguments: [String]) async throws {
    let logger = Logger(label: "bench") { _ in SwiftLogNoOpLogHandler() }
    let database = try HubDatabase(url: arguments[0], passwordFile: arguments[1])
    let tls = arguments.count == 4 ? (certificate: arguments[2], key: arguments[3]) : nil
    let client = PostgresClient(configuration: database.configuration, backgroundLogger: logger)
    let server = HubServer(
        store: HubStore(client: client, logger: logger),
        configuration: WebConfiguration(host: "127.0.0.1", port: 0, tls: tls),
        logger: logger
    )
    let services = try server.services { url in
        FileHandle.standardOutput.write(Data((url + "\n").utf8))
    }
    try await ServiceGroup(configuration: .init(services: services, logger: logger)).run()
}
