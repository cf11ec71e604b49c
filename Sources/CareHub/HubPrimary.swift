public import Logging
public import PostgresNIO
public import ServiceLifecycle
import Synchronization

/// The hub's writable PostgreSQL server and the running client on it; over several servers (a primary and its
/// replicas, ``HubDatabase/servers``), it follows a failover by itself.
///
/// On start, and whenever an operation fails on a lost connection, a read-only server (SQLSTATE 25006) or no answer
/// in time (``suspect()``), it probes the servers in the address's order (`SHOW transaction_read_only`, or
/// `SELECT pg_is_in_recovery()` for `target_session_attrs=primary`), each within the probe timeout, and uses the
/// first writable one: a new client on it replaces the old, which serves what it still has in flight for a grace of
/// one probe timeout and then stops. Each switch is logged once with the server (never the password). While no
/// server is writable, operations wait for one within their own deadline (so the hub answers 503) and the probes
/// repeat with a backoff on the injected clock, 0.5 s doubling to 15 s.
///
/// Over one server, or one client given, it only runs that client: PostgreSQL restarting under the same address
/// needs no probe, the driver reconnects. Over one server it still connects once on start and on each suspicion, to
/// say what is wrong when the driver cannot connect.
///
/// A probe that cannot connect is logged as a warning naming the server and the problem in words
/// (``HubDatabase/connectionProblem(_:at:)``: a certificate that failed verification against which CA file, a
/// server without TLS), once until the problem changes; an operation that then fails on the connection or on its
/// deadline says it too (``problem``). A link that may carry readings across the network in plain text
/// (``HubDatabase/plainTextWarning``) is logged as a warning once, when the primary is made.
public final class HubPrimary: Service, Sendable {
    /// The servers followed; nil for one client given.
    public let database: HubDatabase?
    /// How long one probe may take (`--database-timeout`), and the old client's grace after a switch.
    let probeTimeout: Duration
    let clock: any Clock<Duration>
    let logger: Logger
    /// One server or one client: nothing to follow.
    let fixed: Bool

    /// The first wait between two rounds of probes while no server is writable; it doubles up to
    /// ``longestBackoff``.
    static let firstBackoff: Duration = .milliseconds(500)
    static let longestBackoff: Duration = .seconds(15)

    private struct Running {
        var client: PostgresClient
        var task: Task<Void, Never>
    }

    private struct State {
        /// The client operations use.
        var client: PostgresClient
        /// The server of ``client`` once one was found writable.
        var inUse: HubDatabase.Server?
        /// Whether ``inUse`` is writable as far as the hub knows: false until the first probe finds a server, and
        /// while none is.
        var writable = false
        var running: [HubDatabase.Server: Running] = [:]
        var retiring: [Task<Void, Never>] = []
        var waiters: [Int: CheckedContinuation<Void, any Error>] = [:]
        var cancelledBeforeWaiting: Set<Int> = []
        var nextID = 0
        var stopped = false
        /// Each server's problem, from its last probe that could not connect.
        var problems: [HubDatabase.Server: String] = [:]
        /// The problem of the last probe that could not connect, until a probe of that server connects.
        var problem: String?
    }

    private let state: Mutex<State>
    private let suspicions: AsyncStream<Void>
    private let suspicion: AsyncStream<Void>.Continuation

    /// One client, run by ``run()`` or by its owner: nothing is probed.
    public init(client: PostgresClient) {
        database = nil
        probeTimeout = .seconds(10)
        clock = ContinuousClock()
        logger = Logger(label: "carebridge.hub.primary", factory: { _ in SwiftLogNoOpLogHandler() })
        fixed = true
        state = Mutex(State(client: client, writable: true))
        (suspicions, suspicion) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    /// The servers of `database`: one is used as it is; several are probed for the writable one.
    /// - Parameters:
    ///   - probeTimeout: how long one probe may take (`--database-timeout`).
    ///   - clock: the clock of the probes' timeouts and backoff.
    public init(
        database: HubDatabase,
        probeTimeout: Duration,
        clock: any Clock<Duration> = ContinuousClock(),
        logger: Logger
    ) {
        self.database = database
        self.probeTimeout = probeTimeout
        self.clock = clock
        self.logger = logger
        fixed = database.servers.count == 1
        let client = PostgresClient(configuration: database.configuration, backgroundLogger: logger)
        state = Mutex(State(client: client, writable: fixed))
        (suspicions, suspicion) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
        if let warning = database.plainTextWarning { logger.warning("\(warning)") }
    }

    /// Why the last probe could not connect, in words naming the server; nil once a probe of it connects.
    var problem: String? { state.withLock { $0.problem } }

    /// The client on the writable server (before one is found: a client on the first server).
    public var client: PostgresClient { state.withLock { $0.client } }

    /// The server in use, once one was found writable (nil for one client given).
    public var server: HubDatabase.Server? {
        state.withLock { $0.inUse } ?? (fixed ? database?.servers.first : nil)
    }

    /// Returns at once while a writable server is known, else once one is found.
    /// - Throws: `CancellationError` when the caller is cancelled (its deadline); ``HubError`` `.database` once the
    ///   hub stopped.
    func ready() async throws {
        if state.withLock({ $0.writable }) { return }
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let now: (any Error)?? = state.withLock { state in
                    if state.cancelledBeforeWaiting.remove(id) != nil { return .some(CancellationError()) }
                    if state.stopped { return .some(HubError(.database, "the hub's database client has stopped")) }
                    if state.writable { return .some(nil) }
                    state.waiters[id] = continuation
                    return .none
                }
                switch now {
                case .some(.some(let error)): continuation.resume(throwing: error)
                case .some(.none): continuation.resume()
                case .none: break
                }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Void, any Error>? in
                if let waiter = state.waiters.removeValue(forKey: id) { return waiter }
                state.cancelledBeforeWaiting.insert(id)
                return nil
            }
            waiter?.resume(throwing: CancellationError())
        }
    }

    /// An operation failed on a lost connection, a read-only server or no answer in time: look for the writable
    /// server again (several suspicions before the next probe make one).
    func suspect() {
        guard database != nil else { return }
        suspicion.yield()
    }

    // MARK: - Service

    /// Runs the client (one server, connecting once on start and on each suspicion to find a problem), or follows
    /// the writable server until cancelled or shut down gracefully; then stops every client it started.
    public func run() async throws {
        guard let database, !fixed else {
            await withTaskGroup(of: Void.self) { group in
                if let database {
                    group.addTask {
                        var suspicions = self.suspicions.makeAsyncIterator()
                        repeat {
                            _ = await self.isWritable(database.servers[0], of: database)
                        } while await suspicions.next() != nil
                    }
                }
                await client.run()
                group.cancelAll()
            }
            return
        }
        await cancelWhenGracefulShutdown { await self.follow(database) }
        let (tasks, waiters) = state.withLock { state in
            state.stopped = true
            defer {
                state.running = [:]
                state.retiring = []
                state.waiters = [:]
            }
            return (state.running.values.map(\.task) + state.retiring, Array(state.waiters.values))
        }
        for waiter in waiters { waiter.resume(throwing: HubError(.database, "the hub's database client has stopped")) }
        for task in tasks { task.cancel() }
        for task in tasks { await task.value }
    }

    /// Probes, uses the first writable server, and probes again on each suspicion; with none writable, probes
    /// again after a backoff.
    private func follow(_ database: HubDatabase) async {
        var failures = 0
        var suspicions = self.suspicions.makeAsyncIterator()
        while !Task.isCancelled {
            if let server = await firstWritable(of: database) {
                use(server, of: database)
                failures = 0
                guard await suspicions.next() != nil else { return }
            } else {
                let wasWritable = state.withLock { state in
                    defer { state.writable = false }
                    return state.writable
                }
                let backoff = min(Self.firstBackoff * (1 << min(failures, 10)), Self.longestBackoff)
                if wasWritable || failures == 0 {
                    logger.warning(
                        "no writable PostgreSQL server: the hub answers 503 and probes again",
                        metadata: ["database": "\(database.description)", "backoff": "\(backoff)"]
                    )
                }
                failures += 1
                do { try await clock.sleep(for: backoff) } catch { return }
            }
        }
    }

    /// Makes `server` the one operations use: its client, started if it is not running (the old one retires after
    /// a grace); logs a switch.
    private func use(_ server: HubDatabase.Server, of database: HubDatabase) {
        let (previous, waiters) = state.withLock { state in
            let previous = state.inUse
            if state.running[server] == nil {
                let client =
                    previous == nil && server == database.servers[0]
                    ? state.client
                    : PostgresClient(configuration: database.configuration(of: server), backgroundLogger: logger)
                state.running[server] = Running(client: client, task: Task { await client.run() })
            }
            state.client = state.running[server]!.client
            if let previous, previous != server, let old = state.running.removeValue(forKey: previous) {
                let (clock, grace) = (clock, probeTimeout)
                state.retiring.append(
                    Task {
                        // What the old client still has in flight may finish (a read on a server now read-only).
                        try? await clock.sleep(for: grace)
                        old.task.cancel()
                        await old.task.value
                    }
                )
            }
            state.inUse = server
            state.writable = true
            defer { state.waiters = [:] }
            return (previous, Array(state.waiters.values))
        }
        for waiter in waiters { waiter.resume() }
        if previous == nil {
            logger.info("hub database: writable server found", metadata: ["database.server": "\(server)"])
        } else if let previous, previous != server {
            logger.warning(
                "hub database switched to a new writable server",
                metadata: ["database.server": "\(server)", "database.previous": "\(previous)"]
            )
        }
    }

    /// The first server that answers a probe as writable, in the address's order.
    private func firstWritable(of database: HubDatabase) async -> HubDatabase.Server? {
        for server in database.servers where await isWritable(server, of: database) { return server }
        return nil
    }

    /// Whether `server` accepts writes now, asked within the probe timeout on a connection of its own.
    private func isWritable(_ server: HubDatabase.Server, of database: HubDatabase) async -> Bool {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        let (logger, timeout) = (logger, probeTimeout)
        let outcome = await FirstAnswer.race(within: probeTimeout, on: clock) {
            let configuration = try database.connectionConfiguration(of: server, timeout: timeout)
            let connection = try await PostgresConnection.connect(configuration: configuration, id: id, logger: logger)
            do {
                let writable: Bool
                switch database.sessionTarget {
                case .readWrite:
                    let rows = try await connection.query("SHOW transaction_read_only", logger: logger)
                    writable = try await rows.decode(String.self).collected() == ["off"]
                case .primary:
                    let rows = try await connection.query("SELECT pg_is_in_recovery()", logger: logger)
                    writable = try await rows.decode(Bool.self).collected() == [false]
                }
                try? await connection.close()
                return writable
            } catch {
                try? await connection.close()
                throw error
            }
        }
        switch outcome {
        case .success(let writable)?:
            logger.debug("hub database probe", metadata: ["database.server": "\(server)", "writable": "\(writable)"])
            state.withLock { state in
                if state.problems.removeValue(forKey: server) == state.problem { state.problem = nil }
            }
            return writable
        case .failure(let error)?:
            logger.debug(
                "hub database probe failed",
                metadata: ["database.server": "\(server)", "error": "\(String(reflecting: error))"]
            )
            failed(server, database.connectionProblem(error, at: server))
            return false
        case nil:
            failed(server, "PostgreSQL at \(server) did not answer within \(probeTimeout)")
            return false
        }
    }

    /// Keeps a probe's `problem` with `server`; logs it as a warning when it is new for that server.
    private func failed(_ server: HubDatabase.Server, _ problem: String) {
        let new = state.withLock { state in
            state.problem = problem
            return state.problems.updateValue(problem, forKey: server) != problem
        }
        if new { logger.warning("hub database: cannot connect", metadata: ["problem": "\(problem)"]) }
    }

    // MARK: - Which failures send the hub looking

    /// Whether an operation's outcome says the server may be gone or read-only: no answer in time (nil), a lost or
    /// refused connection, SQLSTATE 25006 (read-only), class 08 (connection exception) or 57P01–57P03 (shut down,
    /// starting).
    static func isConnectionFailure<Success>(_ outcome: Result<Success, any Error>?) -> Bool {
        switch outcome {
        case nil: true
        case .success?: false
        case .failure(let error)?: isConnectionFailure(error)
        }
    }

    static func isConnectionFailure(_ error: any Error) -> Bool {
        switch error {
        case let error as PSQLError:
            if [.connectionError, .serverClosedConnection, .uncleanShutdown, .clientClosedConnection].contains(
                error.code
            ) {
                return true
            }
            guard error.code == .server, let state = error.serverInfo?[.sqlState] else { return false }
            return state == "25006" || state.hasPrefix("08") || ["57P01", "57P02", "57P03"].contains(state)
        case let error as PostgresTransactionError:
            return [error.beginError, error.closureError, error.commitError, error.rollbackError]
                .contains { $0.map(isConnectionFailure) ?? false }
        case let error as HubError:
            return error.cause.map(isConnectionFailure) ?? false
        default:
            return false
        }
    }
}
