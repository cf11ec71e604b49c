import BridgeCore
import BridgeFoundation
import DeviceSessions
import Foundation
import GATTDecoding
import Logging

/// The BlueZ client: owns the D-Bus connection's state (the object mirror, the adapter, discovery, the
/// device sessions) and turns bluetoothd's signals into transport events.
///
/// Everything mutable lives in this actor; the bus thread only delivers messages into `inputs`, in receive
/// order, and resumes call continuations.
actor BlueZClient {
    enum Input: Sendable {
        case message(DBusMessage)
        case busLost
        case hotplug(action: String, adapter: String)
        case wake
    }

    let configuration: BlueZConfiguration
    let policy: (any ConnectionPolicy)?
    let logger: Logger
    let output: AsyncThrowingStream<TransportEvent, any Error>.Continuation
    let status: @Sendable (BlueZStatus) -> Void
    let inputs: AsyncStream<Input>
    let inputContinuation: AsyncStream<Input>.Continuation

    var bus: DBusConnection?
    var mirror = ObjectMirror()
    /// Object path of the adapter in use (`/org/bluez/hci0`), nil while there is none.
    var adapterPath: String?
    /// bluetoothd currently owns `org.bluez`.
    var bluezPresent = false
    /// We own a running discovery session.
    var discovering = false
    /// A re-attach failed (bluetoothd answers `Busy` to our power-on while it powers its adapters itself after a
    /// restart); the next adapter seen powered tries again.
    var reattachFailed = false
    /// Discovery is stopped on purpose while a connection attempt runs.
    var discoveryPausedForConnect = false

    var sessions: [String: DeviceSession] = [:]
    var connectQueue: [(address: String, plan: ConnectionPlan)] = []
    var connecting = false
    /// When each device may be connected again, as ``elapsed`` time.
    var cooldownUntil: [String: Duration] = [:]
    /// The work running in tasks of its own (``spawn(_:)``), by id; each removes itself when it ends, so this
    /// holds only what still runs, and shutdown cancels it.
    var tasks: [Int: Task<Void, Never>] = [:]
    var nextTask = 0

    /// Advertisements seen, for the scanner watchdog.
    var advertisements = 0
    var fatal: TransportError?
    var stopRequested = false
    var stopping = false

    var waiters: [Int: Waiter] = [:]
    var nextWaiter = 0
    var agent: PairingAgent?
    /// Last event time per device, in whole milliseconds since 1970 (see `emit`).
    var lastEventMillisecond: [String: Double] = [:]
    var hotplug: UdevHotplugMonitor?
    var nextSessionToken = 0

    struct Waiter {
        var check: () -> Bool
        var continuation: CheckedContinuation<Bool, Never>
        /// Ends the wait at its timeout; cancelled when the wait ends first.
        var timer: Task<Void, Never>
    }

    /// The configuration's clock: timeouts, back-off and session timers.
    let clock: any Clock<Duration>
    /// Time on ``clock`` since the client was made (back-off deadlines are kept in it).
    let elapsed: @Sendable () -> Duration

    init(
        configuration: BlueZConfiguration,
        policy: (any ConnectionPolicy)?,
        logger: Logger,
        output: AsyncThrowingStream<TransportEvent, any Error>.Continuation,
        status: @escaping @Sendable (BlueZStatus) -> Void
    ) {
        self.configuration = configuration
        self.policy = policy
        self.logger = logger
        self.output = output
        self.status = status
        clock = configuration.clock
        elapsed = Self.stopwatch(configuration.clock)
        (inputs, inputContinuation) = AsyncStream.makeStream(of: Input.self)
    }

    /// A function that tells how long `clock` has run since this call.
    static func stopwatch<C: Clock<Duration>>(_ clock: C) -> @Sendable () -> Duration {
        let start = clock.now
        return { start.duration(to: clock.now) }
    }

    // MARK: - Lifecycle

    /// Runs until cancelled (graceful: notifications stopped, devices disconnected, discovery stopped) or
    /// until an unrecoverable failure, which finishes the output stream with a `TransportError`.
    func run() async {
        // Inputs are applied by their own task, so waits inside start-up and connections see every signal.
        let consumer = Task {
            for await input in self.inputs { self.apply(input) }
        }
        do {
            try await start()
            await withTaskCancellationHandler {
                _ = await wait(timeout: .seconds(100 * 365 * 86_400)) { self.fatal != nil || self.stopRequested }
            } onCancel: {
                Task { await self.requestStop() }
            }
            if let fatal { throw fatal }
            await shutDown()
            output.finish()
        } catch {
            await shutDown()
            output.finish(throwing: error)
        }
        consumer.cancel()
    }

    func requestStop() {
        stopRequested = true
        checkWaiters()
    }

    func fail(_ error: TransportError) {
        if fatal == nil { fatal = error }
        checkWaiters()
    }

    func start() async throws(TransportError) {
        let continuation = inputContinuation
        let connection: DBusConnection
        do {
            connection = try DBusConnection.open(configuration.bus) { continuation.yield(.busLost) }
        } catch {
            throw TransportError(
                .busUnavailable,
                "cannot connect to the D-Bus system bus: \(error.message) (is dbus running? "
                    + "DBUS_SYSTEM_BUS_ADDRESS=\(ProcessInfo.processInfo.environment["DBUS_SYSTEM_BUS_ADDRESS"] ?? "unset"))",
                cause: error
            )
        }
        bus = connection
        // 1. Matches first, 2. then the snapshot: nothing falls in between.
        for rule in BlueZ.matchRules {
            do {
                _ = try await connection.addMatch(rule) { continuation.yield(.message($0)) }
            } catch {
                throw TransportError(.busUnavailable, "cannot add the D-Bus match \(rule)", cause: error)
            }
        }
        let owner = try await nameOwner()
        guard owner != nil else {
            throw TransportError(
                .bluetoothdNotRunning,
                "bluetoothd is not running: nobody owns org.bluez on the system bus "
                    + "(start it with `sudo systemctl start bluetooth`)"
            )
        }
        bluezPresent = true
        try await attach(initial: true)
        if configuration.followHotplug {
            let monitor = UdevHotplugMonitor()
            do {
                try monitor.start { action, adapter in continuation.yield(.hotplug(action: action, adapter: adapter)) }
                hotplug = monitor
            } catch {
                logger.debug("udev hotplug monitoring unavailable; relying on D-Bus", metadata: ["error": "\(error)"])
            }
        }
    }

    /// Builds the mirror, picks and powers the adapter, starts discovery.
    func attach(initial: Bool) async throws(TransportError) {
        let reply: DBusMessage
        do {
            reply = try await call("/", BlueZ.objectManager, "GetManagedObjects")
        } catch {
            if error.name == .serviceUnknown || error.name == .nameHasNoOwner {
                throw TransportError(
                    .bluetoothdNotRunning,
                    "bluetoothd is not running (org.bluez has no owner)",
                    cause: error
                )
            }
            throw TransportError(.busUnavailable, "GetManagedObjects on org.bluez failed", cause: error)
        }
        mirror.load(snapshot: reply)
        guard let path = selectAdapter() else {
            let available = adapterNames()
            let message: String
            if let wanted = configuration.adapter {
                message =
                    "adapter \(wanted) not found"
                    + (available.isEmpty
                        ? ": bluetoothd has no adapter" : "; available: \(available.joined(separator: ", "))")
            } else {
                message =
                    "no Bluetooth adapter: bluetoothd has none (is the controller plugged in? see `carebridge adapters`)"
            }
            if initial { throw TransportError(.noAdapter, message) }
            logger.warning("waiting for an adapter", metadata: ["reason": "\(message)"])
            status(.paused(reason: message))
            return
        }
        adapterPath = path
        try await powerOn(path)
        try await startDiscovery()
        let name = Self.adapterName(path)
        logger.info("adapter ready, discovering", metadata: ["adapter": "\(name)"])
        status(initial ? .ready(adapter: name) : .resumed(adapter: name))
    }

    func shutDown() async {
        guard !stopping else { return }
        stopping = true
        for task in tasks.values { task.cancel() }
        hotplug?.stop()
        for id in Array(waiters.keys) { finishWait(id, result: false) }
        if bus != nil, bluezPresent {
            for (address, session) in sessions {
                for characteristic in session.watched.keys {
                    _ = try? await call(characteristic, BlueZ.gattCharacteristic, "StopNotify", timeout: .seconds(2))
                }
                if session.connectedEmitted {
                    _ = try? await call(session.path, BlueZ.device, "Disconnect", timeout: .seconds(3))
                    emit(address, .disconnected(reason: "local"))
                }
                if session.plan.requiresPairing, session.plan.bondRenewal == .everySession {
                    await removeBond(session.path, address: address, profile: session.plan.profile)
                }
            }
            sessions.removeAll()
            if discovering, let adapterPath {
                _ = try? await call(adapterPath, BlueZ.adapter, "StopDiscovery", timeout: .seconds(2))
                discovering = false
            }
            if let agent {
                _ = try? await call(BlueZ.root, BlueZ.agentManager, "UnregisterAgent", [.objectPath(agent.path)])
            }
        }
        bus?.close()
        bus = nil
        inputContinuation.finish()
    }

    // MARK: - Inputs

    /// Applies one input in receive order; anything that needs calls runs in its own task.
    func apply(_ input: Input) {
        switch input {
        case .wake:
            break
        case .busLost:
            fail(TransportError(.busDisconnected, "the D-Bus connection to the system bus dropped"))
        case .hotplug(let action, let adapter):
            logger.info("adapter hotplug", metadata: ["action": "\(action)", "adapter": "\(adapter)"])
            if action == "add", adapterPath == nil, bluezPresent {
                // D-Bus is the authority; the udev event only makes us look again sooner.
                spawn { await $0.reattach() }
            }
        case .message(let message):
            apply(message)
        }
        checkWaiters()
    }

    func apply(_ message: DBusMessage) {
        if message.interface == BlueZ.busService, message.member == "NameOwnerChanged" {
            ownerChanged(message)
            return
        }
        let change = mirror.apply(message)
        logger.trace(
            "signal",
            metadata: ["path": "\(message.path ?? "")", "member": "\(message.member ?? "")", "change": "\(change)"]
        )
        switch change {
        case .ignored:
            break
        case .added(let path, let interfaces):
            if interfaces.contains(BlueZ.adapter), adapterPath == nil, bluezPresent {
                spawn { await $0.reattach() }
            } else if interfaces.contains(BlueZ.device), discovering {
                deviceAdvertised(path, changed: mirror.properties(path, BlueZ.device) ?? [:])
            }
        case .removed(let path, let interfaces):
            if interfaces.contains(BlueZ.adapter), path == adapterPath {
                adapterLost("adapter \(Self.adapterName(path)) was removed")
            } else if interfaces.contains(BlueZ.device) {
                endSession(devicePath: path, reason: "vanished")
            }
        case .properties(let path, let interface, let changed, _):
            switch interface {
            case BlueZ.device:
                if !Advertisement.advertisedProperties.isDisjoint(with: changed.keys) {
                    deviceAdvertised(path, changed: changed)
                }
                if changed["Connected"]?.bool == false {
                    endSession(devicePath: path, reason: "remote")
                }
            case BlueZ.gattCharacteristic:
                if let value = changed["Value"]?.bytes { characteristicChanged(path, value: value) }
            case BlueZ.adapter:
                if path == adapterPath, changed["Powered"]?.bool == false, !stopping {
                    logger.warning("adapter powered off", metadata: ["adapter": "\(Self.adapterName(path))"])
                }
                if reattachFailed, changed["Powered"]?.bool == true, bluezPresent, !discovering {
                    reattachFailed = false
                    logger.info("adapter powered; re-attaching", metadata: ["adapter": "\(Self.adapterName(path))"])
                    spawn { await $0.reattach() }
                }
            default:
                break
            }
        }
    }

    /// Runs actor work in its own task, kept in ``tasks`` (for cancellation at shutdown) until it ends.
    /// - Returns: the task's id in ``tasks`` (0 when stopping: nothing runs).
    @discardableResult
    func spawn(_ work: @escaping @Sendable (isolated BlueZClient) async -> Void) -> Int {
        guard !stopping else { return 0 }
        nextTask += 1
        let id = nextTask
        // The task starts on this actor, so only after the entry below is made.
        tasks[id] = Task {
            await work(self)
            self.tasks[id] = nil
        }
        return id
    }

    func ownerChanged(_ message: DBusMessage) {
        guard message.arguments.count >= 3, message.arguments[0].string == BlueZ.service else { return }
        let newOwner = message.arguments[2].string ?? ""
        if newOwner.isEmpty {
            logger.warning("bluetoothd left the bus; waiting for it to come back")
            bluezPresent = false
            for address in Array(sessions.keys) { endSession(address: address, reason: "bluetoothd-restart") }
            mirror.clear()
            adapterPath = nil
            discovering = false
            status(.paused(reason: "bluetoothd is not running"))
        } else {
            logger.info("bluetoothd is back on the bus", metadata: ["owner": "\(newOwner)"])
            bluezPresent = true
            spawn { await $0.reattach() }
        }
    }

    func reattach() async {
        guard adapterPath == nil || !discovering else { return }
        do {
            try await attach(initial: false)
        } catch {
            if error.code == .blockedByRfkill {
                fail(error)
            } else {
                reattachFailed = !discovering
                logger.warning(
                    "re-attaching to bluetoothd failed; trying again when an adapter is powered",
                    metadata: ["error": "\(error)"]
                )
            }
        }
    }

    func adapterLost(_ reason: String) {
        logger.warning("pausing", metadata: ["reason": "\(reason)"])
        for address in Array(sessions.keys) { endSession(address: address, reason: "adapter-removed") }
        adapterPath = nil
        discovering = false
        status(.paused(reason: reason))
    }

    // MARK: - Events

    /// Emits an event stamped with the receive time. A device's events get strictly increasing whole
    /// milliseconds: a sample without a device clock is identified by its receive time, and two notifications
    /// cannot really arrive within one millisecond (the shortest LE connection interval is 7.5 ms), so equal
    /// stamps only come from a backlog processed at once and must not collapse two readings into one.
    ///
    /// Every stamp is a whole millisecond, as a recording writes it, so a replay of `run --record` gives back
    /// exactly the live samples (their identities include the time; sub-millisecond stamps made some replayed
    /// samples differ by 1 ms from the live ones against the real bluetoothd).
    func emit(_ address: String, _ kind: TransportEvent.Kind) {
        var milliseconds = (configuration.wallClock().timeIntervalSince1970 * 1000).rounded()
        if let last = lastEventMillisecond[address], milliseconds <= last { milliseconds = last + 1 }
        lastEventMillisecond[address] = milliseconds
        output.yield(
            TransportEvent(time: Date(timeIntervalSince1970: milliseconds / 1000), device: address, kind: kind)
        )
    }

    func deviceAdvertised(_ path: String, changed: ObjectMirror.Properties) {
        guard let adapterPath, path.hasPrefix(adapterPath + "/"), !path.dropFirst(adapterPath.count + 1).contains("/"),
            let properties = mirror.properties(path, BlueZ.device),
            let address = properties["Address"]?.string?.uppercased()
        else { return }
        advertisements &+= 1
        if let only = configuration.onlyDevice, only.uppercased() != address { return }
        let advertisement = Advertisement(device: properties, changed: changed)
        emit(address, .advertisement(advertisement))
        guard !configuration.scanOnly, let policy,
            let plan = policy.plan(forDevice: address, advertisement: advertisement), plan.linkMode == .gatt
        else { return }
        considerConnecting(address, plan: plan)
    }

    /// A notified or indicated value. It belongs to the session whose device the characteristic is under, if the
    /// plan subscribes to its UUID: bluetoothd keeps our notify session across reconnects and re-enables the
    /// device's CCCD itself when the link comes back, so values can arrive before our own StartNotify (and before
    /// the Connect reply: those wait for the `connected` event).
    func characteristicChanged(_ path: String, value: [UInt8]) {
        for (address, session) in sessions where path.hasPrefix(session.path + "/") {
            guard let subscription = session.watched[path] ?? subscription(path, plan: session.plan) else { return }
            let characteristicValue = CharacteristicValue(
                characteristic: subscription.uuid,
                bytes: value,
                delivery: subscription.delivery
            )
            if session.connectedEmitted {
                emit(address, .value(characteristicValue))
                feedSession(address, token: session.token, .value(characteristicValue))
            } else {
                sessions[address]?.early.append(characteristicValue)
            }
            return
        }
    }

    /// The UUID and delivery of a characteristic the plan subscribes to (nil for any other).
    func subscription(
        _ path: String,
        plan: ConnectionPlan
    ) -> (uuid: BluetoothUUID, delivery: CharacteristicValue.Delivery)? {
        guard let properties = mirror.properties(path, BlueZ.gattCharacteristic),
            let uuid = properties["UUID"]?.string.flatMap(BluetoothUUID.init), plan.subscribe.contains(uuid)
        else { return nil }
        let flags = properties["Flags"]?.stringArray ?? []
        return (uuid, flags.contains("indicate") && !flags.contains("notify") ? .indication : .notification)
    }

    // MARK: - Waiting on the mirror

    /// Waits until `check` holds (re-evaluated after every input) or the timeout passes.
    /// - Returns: whether `check` held.
    func wait(timeout: Duration, until check: @escaping () -> Bool) async -> Bool {
        if check() { return true }
        if stopping { return false }
        nextWaiter += 1
        let id = nextWaiter
        return await withCheckedContinuation { continuation in
            let timer = Task { [clock] in
                do { try await clock.sleep(for: timeout) } catch { return }
                self.finishWait(id, result: nil)
            }
            waiters[id] = Waiter(check: check, continuation: continuation, timer: timer)
        }
    }

    /// Ends wait `id` (if it still runs) with `result`, or at its timeout (nil) with what its check says now.
    func finishWait(_ id: Int, result: Bool?) {
        guard let waiter = waiters.removeValue(forKey: id) else { return }
        if result != nil { waiter.timer.cancel() }
        waiter.continuation.resume(returning: result ?? waiter.check())
    }

    func checkWaiters() {
        for (id, waiter) in waiters where waiter.check() { finishWait(id, result: true) }
    }

    // MARK: - Calls

    func call(
        _ path: String,
        _ interface: String,
        _ member: String,
        _ arguments: [DBusValue] = [],
        timeout: Duration? = nil
    ) async throws(DBusError) -> DBusMessage {
        guard let bus else {
            throw DBusError(name: .disconnected, message: "not connected", operation: "\(interface).\(member)")
        }
        let call = DBusMethodCall(
            destination: BlueZ.service,
            path: path,
            interface: interface,
            member: member,
            arguments: arguments
        )
        return try await bus.call(call, timeout: timeout ?? configuration.callTimeout)
    }

    func nameOwner() async throws(TransportError) -> String? {
        guard let bus else { return nil }
        do {
            let reply = try await bus.call(
                DBusMethodCall(
                    destination: BlueZ.busService,
                    path: BlueZ.busPath,
                    interface: BlueZ.busService,
                    member: "GetNameOwner",
                    arguments: [.string(BlueZ.service)]
                ),
                timeout: configuration.callTimeout
            )
            return reply.arguments.first?.string
        } catch {
            if error.name == .nameHasNoOwner { return nil }
            throw TransportError(.busUnavailable, "asking the bus who owns org.bluez failed", cause: error)
        }
    }

    func sleep(_ duration: Duration) async {
        let scaled = duration * configuration.backoffScale
        try? await clock.sleep(for: scaled)
    }

    static func adapterName(_ path: String) -> String {
        String(path.split(separator: "/").last ?? "")
    }
}

/// One device the transport is connecting to or connected with.
struct DeviceSession: Sendable {
    var address: String
    var path: String
    var plan: ConnectionPlan
    var established = false
    var connectedEmitted = false
    /// Characteristic path → what to report its values as. Set before StartNotify, so a notification
    /// arriving right after it is not lost; StopNotify is called on these when the bridge stops.
    var watched: [String: (uuid: BluetoothUUID, delivery: CharacteristicValue.Delivery)] = [:]
    /// Values that arrived before the `connected` event was emitted, delivered right after it.
    var early: [CharacteristicValue] = []
    /// The profile's session steps, once they run (see `BlueZClient+Session.swift`).
    var machine: SessionMachine?
    /// Tells this connection's session apart from an earlier one's late replies and timers.
    var token = 0
    /// The session's timers (ids in the client's tasks), cancelled when the session ends.
    var timers: [Int] = []
}
