import Foundation
import TestSupport

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#endif

/// A real Home Assistant Core (2024.3.3 from PyPI, in the venv `.ci/run` makes) for the tests, with its MQTT
/// integration on a private mosquitto: a fresh configuration directory, `hass` on a free loopback port, onboarded
/// through its REST API (the first user, then a token for it) and the MQTT entry added through the config-flow
/// API, as a person would in the UI. Tests read entity states and press buttons through the REST API.
///
/// Starting takes a while on a loaded machine (Python imports, the first bytecode compile), so one server serves
/// a whole suite (``HomeAssistantScope``); every wait is for a condition Home Assistant reports, with a generous
/// budget.
final class HomeAssistantServer: @unchecked Sendable {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// The venv with `hass`: `$CAREBRIDGE_HA_VENV`, or `/opt/carebridge/ha-venv` as `.ci/run` installs it.
    static let venv = ProcessInfo.processInfo.environment["CAREBRIDGE_HA_VENV"] ?? "/opt/carebridge/ha-venv"
    static var hass: String { "\(venv)/bin/hass" }
    static var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: hass) }
    /// Run the tests when Home Assistant is installed, and always in CI (where a missing one must fail them).
    static var testsEnabled: Bool {
        MosquittoBroker.testsEnabled && (isInstalled || ProcessInfo.processInfo.environment["CI"] == "true")
    }
    static let installHint = "needs Home Assistant Core 2024.3.3 in \(venv) (.ci/run installs it)"

    /// The server of the running suite (``HomeAssistantScope``).
    @TaskLocal static var current: HomeAssistantServer?

    let broker: MosquittoBroker
    let directory: URL
    let port: Int
    let process = Process()
    private(set) var token = ""
    /// How long the start took, up to the MQTT entry loaded (reported in the test log).
    private(set) var startDuration: Duration = .zero

    var baseURL: String { "http://127.0.0.1:\(port)" }
    var log: String {
        (try? String(contentsOf: directory.appendingPathComponent("hass.log"), encoding: .utf8)) ?? ""
    }

    /// Starts mosquitto and Home Assistant, onboards it and adds the MQTT entry for the broker.
    /// - Throws: ``Failure`` when Home Assistant is missing, exits or refuses a step; ``EventuallyTimeout`` when it
    ///   does not answer within ten minutes.
    static func start() async throws -> HomeAssistantServer {
        guard isInstalled else { throw Failure(description: installHint) }
        let broker = try MosquittoBroker()
        try broker.start()
        let server = try HomeAssistantServer(broker: broker)
        do {
            try await server.bootstrap()
        } catch {
            server.stop()
            throw Failure(description: "Home Assistant did not start: \(error)\n\(server.log.suffix(4000))")
        }
        return server
    }

    private init(broker: MosquittoBroker) throws {
        self.broker = broker
        port = try MosquittoBroker.freeLoopbackPort()
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("home-assistant-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        // The integrations a person needs to onboard and add MQTT; the default ones Home Assistant loads anyway.
        let configuration = """
            homeassistant:
              name: CareBridge test
              time_zone: UTC
              unit_system: metric
              latitude: 0
              longitude: 0
              elevation: 0
              currency: EUR
              country: DE
            http:
              server_host: 127.0.0.1
              server_port: \(port)
            api:
            config:
            onboarding:
            logger:
              default: warning
              logs:
                homeassistant.components.mqtt: info

            """
        try configuration.write(
            to: directory.appendingPathComponent("configuration.yaml"),
            atomically: true,
            encoding: .utf8
        )
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: directory)
    }

    private func bootstrap() async throws {
        let started = ContinuousClock.now
        let logURL = directory.appendingPathComponent("hass.log")
        _ = FileManager.default.createFile(atPath: logURL.path, contents: nil)
        // The parent-death signal makes Home Assistant stop with the test process even when the test runner
        // crashes before the scope ends (PR_SET_PDEATHSIG = 1, SIGTERM = 15); then it execs hass.
        process.executableURL = URL(fileURLWithPath: "\(Self.venv)/bin/python3")
        process.arguments = [
            "-c",
            "import ctypes, os, sys; ctypes.CDLL(None).prctl(1, 15); os.execv(sys.argv[1], sys.argv[1:])",
            Self.hass, "-c", directory.path, "--skip-pip",
        ]
        process.standardOutput = try FileHandle(forWritingTo: logURL)
        process.standardError = try FileHandle(forWritingTo: logURL)
        process.standardInput = FileHandle.nullDevice
        try process.run()

        try await waitUntil(
            "Home Assistant answers /api/onboarding",
            timeout: .seconds(600),
            interval: .milliseconds(200)
        ) {
            guard process.isRunning else { throw Failure(description: "hass exited with \(process.terminationStatus)") }
            return (try? await request("GET", "/api/onboarding", authorized: false).status) == 200
        }
        // Onboarding: the first user, whose authorization code becomes a token (the frontend's own client id).
        let clientID = "\(baseURL)/"
        let user = try await request(
            "POST",
            "/api/onboarding/users",
            json: [
                "client_id": clientID, "name": "Carer", "username": "carer", "password": "care-\(UUID().uuidString)",
                "language": "en",
            ],
            authorized: false
        )
        let code = try Self.field("auth_code", of: user)
        var form = URLRequest(url: URL(string: "\(baseURL)/auth/token")!)
        form.httpMethod = "POST"
        form.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        form.httpBody = Data("grant_type=authorization_code&code=\(code)&client_id=\(clientID)".utf8)
        let (tokenBody, _) = try await URLSession.shared.data(for: form)
        token = try Self.field("access_token", of: Response(status: 200, body: tokenBody))

        // The MQTT entry through the config flow: the broker step with our mosquitto.
        let flow = try await request("POST", "/api/config/config_entries/flow", json: ["handler": "mqtt"])
        let flowID = try Self.field("flow_id", of: flow)
        let entry = try await request(
            "POST",
            "/api/config/config_entries/flow/\(flowID)",
            json: ["broker": "127.0.0.1", "port": broker.port]
        )
        guard let object = try entry.object(), object["type"] as? String == "create_entry" else {
            throw Failure(description: "the MQTT config flow did not create an entry: \(entry.text)")
        }
        // Connected and listening for discovery: the broker logged its subscription to the discovery prefix.
        try await waitUntil("Home Assistant subscribes to homeassistant/+/+/config", timeout: .seconds(300)) {
            broker.log.contains("homeassistant/+/+/config")
        }
        startDuration = started.duration(to: .now)
    }

    /// Stops Home Assistant (SIGTERM, then SIGKILL after a minute) and the broker.
    func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGTERM)
            let deadline = Date().addingTimeInterval(60)
            while process.isRunning, Date() < deadline { usleep(50_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
        broker.stop()
    }

    // MARK: - REST API

    struct Response {
        var status: Int
        var body: Data
        var text: String { String(decoding: body, as: UTF8.self) }
        func object() throws -> [String: Any]? { try JSONSerialization.jsonObject(with: body) as? [String: Any] }
    }

    /// One REST call with the token (unless `authorized` is false) and an optional JSON body.
    func request(
        _ method: String,
        _ path: String,
        json: [String: Any]? = nil,
        authorized: Bool = true
    ) async throws -> Response {
        var request = URLRequest(url: URL(string: baseURL + path)!)
        request.httpMethod = method
        request.timeoutInterval = 120
        if authorized { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        if let json {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = try JSONSerialization.data(withJSONObject: json)
        }
        let (body, response) = try await URLSession.shared.data(for: request)
        return Response(status: (response as? HTTPURLResponse)?.statusCode ?? 0, body: body)
    }

    /// Every entity's state object (`entity_id`, `state`, `attributes`).
    func states() async throws -> [[String: Any]] {
        let response = try await request("GET", "/api/states")
        guard response.status == 200,
            let list = try JSONSerialization.jsonObject(with: response.body) as? [[String: Any]]
        else { throw Failure(description: "GET /api/states: \(response.status) \(response.text)") }
        return list
    }

    /// One entity's state object; nil when Home Assistant has no such entity.
    func state(_ entityID: String) async throws -> [String: Any]? {
        let response = try await request("GET", "/api/states/\(entityID)")
        if response.status == 404 { return nil }
        guard response.status == 200 else {
            throw Failure(description: "GET /api/states/\(entityID): \(response.status) \(response.text)")
        }
        return try response.object()
    }

    /// Calls a service (`button.press`, …) with `data`.
    func callService(_ domain: String, _ service: String, data: [String: Any]) async throws {
        let response = try await request("POST", "/api/services/\(domain)/\(service)", json: data)
        guard response.status == 200 else {
            throw Failure(description: "POST /api/services/\(domain)/\(service): \(response.status) \(response.text)")
        }
    }

    private static func field(_ name: String, of response: Response) throws -> String {
        guard let value = try response.object()?[name] as? String else {
            throw Failure(description: "no \(name) in \(response.status) \(response.text)")
        }
        return value
    }
}
