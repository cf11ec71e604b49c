import AsyncHTTPClient
import BridgeCore
import CarePlan
import CareStore
import CareWeb
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import ServiceLifecycle

/// The care app under load (issue #26): a ward store of 100 patients with a 20-task plan each, one of them with a
/// year of completed events and a week of heart rate at one reading a minute; the Today page and the clinician's
/// patient list under 64 concurrent clients (latency p50/p99 and requests per second), and the server's memory
/// with 1,000 live-update streams open. The server runs in a child process (`--care-app-child STORE`) so its
/// memory is its own; the clients are AsyncHTTPClient in this process.
let careAppBenchmark = Benchmark(
    name: "care-app",
    summary: "care app: Today and the 100-patient list under 64 clients; memory with 1,000 live streams"
) {
    let logger = Logger(label: "bench") { _ in SwiftLogNoOpLogHandler() }
    let zone = TimeZone(identifier: "Europe/Berlin")!
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
        "carebridge-bench-\(UUID().uuidString)"
    )
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let storePath = directory.appendingPathComponent("store.sqlite").path
    let started = Date()
    // BENCH_PATIENTS and BENCH_DAYS shrink the ward for a quick look (defaults: 100 patients, 365 days).
    let environment = ProcessInfo.processInfo.environment
    let patients = environment["BENCH_PATIENTS"].flatMap(Int.init) ?? 100
    let days = environment["BENCH_DAYS"].flatMap(Int.init) ?? 365
    try await CareAppFixtureStore.build(path: storePath, patients: patients, days: days, zone: zone, logger: logger)
    print(
        "care-app: store of \(patients) patients × 20 tasks, \(days) days of outcomes and a week of heart rate for "
            + "one, built in " + String(format: "%.1f s", Date().timeIntervalSince(started))
    )

    let (child, base) = try startBenchmarkServer(["--care-app-child", storePath], name: "the care app child")
    defer { child.terminate() }
    let client = HTTPClient(
        eventLoopGroupProvider: .singleton,
        // Redirects are not followed: the session cookie comes with the sign-in's 303.
        configuration: .init(
            redirectConfiguration: .disallow,
            connectionPool: .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: 1100)
        )
    )
    do {
        let nurse = try await signIn(client, base: base, user: "nurse")
        let anna = try await signIn(client, base: base, user: "anna")
        print("care-app: server RSS after start \(rss(of: child.processIdentifier)) MB")
        for (name, path, cookie) in [
            ("Today (anna)", "/patients/anna/today", anna), ("patient list (\(patients) patients)", "/patients", nurse),
        ] {
            // One client first: what a request costs on its own, before 64 clients queue behind each other.
            let alone = try await load(client, url: base + path, cookie: cookie, clients: 1, seconds: 5)
            print(
                "care-app: \(name), one client: \(alone.requests) requests in 5 s, "
                    + String(format: "p50 %.1f ms, p99 %.1f ms", alone.p50 * 1000, alone.p99 * 1000)
            )
            let result = try await load(client, url: base + path, cookie: cookie, clients: 64, seconds: 10)
            print(
                "care-app: \(name): \(result.requests) requests in 10 s, \(Int(result.perSecond)) req/s, "
                    + String(format: "p50 %.1f ms, p99 %.1f ms", result.p50 * 1000, result.p99 * 1000)
                    + ", \(result.failures) failures"
            )
        }
        let before = rss(of: child.processIdentifier)
        var streams: [HTTPClientResponse] = []
        for _ in 0..<1000 {
            var request = HTTPClientRequest(url: base + "/patients/anna/live")
            request.headers.add(name: "Cookie", value: anna)
            streams.append(try await client.execute(request, timeout: .seconds(30)))
        }
        try await Task.sleep(for: .seconds(1))
        let after = rss(of: child.processIdentifier)
        print(
            "care-app: 1,000 live streams open: server RSS \(before) → \(after) MB "
                + String(format: "(%.1f KB per stream)", Double(after - before) * 1024 / 1000)
        )
        streams.removeAll()
    } catch {
        try? await client.shutdown()
        throw error
    }
    try await client.shutdown()
}

/// The server side: `carebridge-bench --care-app-child STORE` serves the store on a free port and prints its URL.
func runCareAppChild(storePath: String) async throws {
    let logger = Logger(label: "bench") { _ in SwiftLogNoOpLogHandler() }
    let store = try CareStore(
        path: storePath,
        bridgeZone: TimeZone(identifier: "Europe/Berlin")!,
        logger: logger,
        mode: .existing
    )
    let app = try CareWebApp(store: store, configuration: WebConfiguration(port: 0), logger: logger)
    let services = try app.services { url in
        FileHandle.standardOutput.write(Data((url + "\n").utf8))
    }
    try await ServiceGroup(configuration: .init(services: services, logger: logger)).run()
}

/// A session cookie for `user` (password `bench password 1`).
private func signIn(_ client: HTTPClient, base: String, user: String) async throws -> String {
    let form = try await client.execute(HTTPClientRequest(url: base + "/login"), timeout: .seconds(30))
    let loginCookie = form.headers["set-cookie"].first { $0.hasPrefix("cb_login=") }?.split(separator: ";")[0] ?? ""
    let page = String(buffer: try await form.body.collect(upTo: 1 << 20))
    let csrf = page.components(separatedBy: "name=\"csrf\" value=\"")[1].prefix { $0 != "\"" }
    var request = HTTPClientRequest(url: base + "/login")
    request.method = .POST
    request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
    request.headers.add(name: "Cookie", value: String(loginCookie))
    request.body = .bytes(ByteBuffer(string: "csrf=\(csrf)&username=\(user)&password=bench+password+1"))
    let response = try await client.execute(request, timeout: .seconds(30))
    guard let session = response.headers["set-cookie"].first(where: { $0.hasPrefix("cb_session=") }) else {
        throw NSError(domain: "carebridge-bench: sign-in as \(user) failed (\(response.status))", code: 1)
    }
    return String(session.split(separator: ";")[0])
}

private func load(
    _ client: HTTPClient,
    url: String,
    cookie: String,
    clients: Int,
    seconds: Double
) async throws
    -> (requests: Int, perSecond: Double, p50: Double, p99: Double, failures: Int)
{
    let deadline = Date().addingTimeInterval(seconds)
    let results = try await withThrowingTaskGroup(of: ([Double], Int).self) { group in
        for _ in 0..<clients {
            group.addTask {
                var latencies: [Double] = []
                var failures = 0
                while Date() < deadline {
                    var request = HTTPClientRequest(url: url)
                    request.headers.add(name: "Cookie", value: cookie)
                    let start = ContinuousClock.now
                    let response = try await client.execute(request, timeout: .seconds(60))
                    _ = try await response.body.collect(upTo: 16 << 20)
                    let elapsed = ContinuousClock.now - start
                    if response.status != .ok { failures += 1 }
                    latencies.append(Double(elapsed.components.attoseconds) / 1e18 + Double(elapsed.components.seconds))
                }
                return (latencies, failures)
            }
        }
        var all: [([Double], Int)] = []
        for try await result in group { all.append(result) }
        return all
    }
    let latencies = results.flatMap(\.0).sorted()
    let failures = results.map(\.1).reduce(0, +)
    guard !latencies.isEmpty else { return (0, 0, 0, 0, failures) }
    let p = { (q: Double) in latencies[min(latencies.count - 1, Int(Double(latencies.count) * q))] }
    return (latencies.count, Double(latencies.count) / seconds, p(0.5), p(0.99), failures)
}
