// A D-Bus connection and its bus thread. sd-bus objects may be used by one thread at a time, so each connection
// owns one thread that dispatches (`SDBus.processPending`) and then blocks in `poll` on the bus descriptor and a
// wake-up pipe; work submitted from other threads is queued and the pipe wakes the thread for it. Async callers
// are bridged with continuations. The sd-bus calls themselves are in `SDBusCalls.swift`, the libc ones in
// `SystemCalls.swift`.

import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Where to connect.
public enum DBusBusAddress: Sendable, Hashable {
    /// The system bus; honours `DBUS_SYSTEM_BUS_ADDRESS` (tests point it at a private daemon).
    case system
    /// An explicit address, e.g. `unix:path=/tmp/dbus-XYZ,guid=…`.
    case address(String)
}

/// One persistent D-Bus connection with its own bus thread.
///
/// All sd-bus calls happen on that thread; public methods enqueue work and await the result.
public final class DBusConnection: @unchecked Sendable {
    // Owned by the bus thread after `open` (thread confinement, not a lock): the handle, the receive counter and
    // the callbacks sd-bus holds pointers to, which must live until their call is answered or their slot released.
    private var bus: OpaquePointer?
    private var sequence: UInt64 = 0
    private var pendingCalls: [UInt64: PendingCall] = [:]
    private var slots: [UInt64: Slot] = [:]
    private var nextID: UInt64 = 0

    private let work = Mutex<[@Sendable (DBusConnection) -> Void]>([])
    private let state = Mutex<State>(.running)
    private let wakeup: WakeupPipe
    private let onDisconnect: @Sendable () -> Void
    /// The unique name the bus gave us (`:1.42`).
    public let uniqueName: String

    private enum State { case running, closing, closed }

    /// A method call waiting for its reply.
    private struct PendingCall {
        var operation: String
        var callback: SDBusCallback
        var completion: @Sendable (Result<DBusMessage, DBusError>) -> Void
    }

    /// A match rule or an exported object: the sd-bus slot and the callback it points to.
    private struct Slot {
        var slot: OpaquePointer?
        var callback: SDBusCallback
    }

    private init(
        bus: OpaquePointer,
        wakeup: WakeupPipe,
        uniqueName: String,
        onDisconnect: @escaping @Sendable () -> Void
    ) {
        self.bus = bus
        self.wakeup = wakeup
        self.uniqueName = uniqueName
        self.onDisconnect = onDisconnect
    }

    /// Opens a connection and starts its bus thread.
    /// - Parameters:
    ///   - address: `.system` (honours `DBUS_SYSTEM_BUS_ADDRESS`) or an explicit address.
    ///   - onDisconnect: called once, on the bus thread, when the connection drops.
    /// - Throws: `DBusError` with the errno (`ENOENT`: no system bus; `ECONNREFUSED`: nobody listening).
    public static func open(
        _ address: DBusBusAddress = .system,
        onDisconnect: @escaping @Sendable () -> Void = {}
    ) throws(DBusError) -> DBusConnection {
        let (bus, uniqueName) = try SDBus.open(address)
        let wakeup: WakeupPipe
        do {
            wakeup = try WakeupPipe()
        } catch {
            SDBus.close(bus)
            throw DBusError(
                name: DBusErrorName("System.Error.\(error.errno)"),
                message: error.description,
                operation: error.function,
                errno: error.errno
            )
        }
        let connection = DBusConnection(bus: bus, wakeup: wakeup, uniqueName: uniqueName, onDisconnect: onDisconnect)
        let thread = Thread { connection.loop() }
        thread.name = "carebridge-dbus"
        thread.start()
        return connection
    }

    // MARK: - Public operations

    /// Calls a method and waits for its reply.
    /// - Returns: the reply (arguments copied out, with its receive sequence number).
    /// - Throws: `DBusError` for an error reply, a timeout (`NoReply`) or a closed connection.
    public func call(_ call: DBusMethodCall, timeout: Duration = .seconds(25)) async throws(DBusError) -> DBusMessage {
        let result: Result<DBusMessage, DBusError> = await withCheckedContinuation { continuation in
            submit { connection in
                connection.startCall(call, timeout: timeout) { continuation.resume(returning: $0) }
            }
        }
        return try result.get()
    }

    /// Adds a match rule; `handler` runs on the bus thread, in receive order, for every matching message.
    /// - Returns: an id for `removeMatch`.
    public func addMatch(
        _ rule: String,
        handler: @escaping @Sendable (DBusMessage) -> Void
    ) async throws(DBusError) -> UInt64 {
        let result: Result<UInt64, DBusError> = await withCheckedContinuation { continuation in
            submit { connection in continuation.resume(returning: connection.installMatch(rule, handler: handler)) }
        }
        return try result.get()
    }

    /// Removes a match added with `addMatch`.
    public func removeMatch(_ id: UInt64) {
        submit { connection in connection.releaseSlot(id) }
    }

    /// Exports an object; `handler` answers each method call on the bus thread.
    public func exportObject(
        at path: String,
        handler: @escaping @Sendable (DBusMessage) -> DBusMethodReply
    ) async throws(DBusError) -> UInt64 {
        let result: Result<UInt64, DBusError> = await withCheckedContinuation { continuation in
            submit { connection in continuation.resume(returning: connection.installObject(path, handler: handler)) }
        }
        return try result.get()
    }

    /// Removes an exported object.
    public func unexportObject(_ id: UInt64) {
        submit { connection in connection.releaseSlot(id) }
    }

    /// Flushes and closes the connection; pending calls fail with `Disconnected`.
    /// Whether ``close()`` has finished: the bus handle is gone and every call fails at once.
    var isClosed: Bool {
        if case .closed = state.withLock({ $0 }) { return true }
        return false
    }

    public func close() {
        let wasRunning = state.withLock { state -> Bool in
            guard case .running = state else { return false }
            state = .closing
            return true
        }
        if wasRunning { wakeup.wake() }
    }

    // MARK: - The bus thread

    private func submit(_ item: @escaping @Sendable (DBusConnection) -> Void) {
        let accepted = state.withLock { state -> Bool in
            if case .closed = state { return false }
            work.withLock { $0.append(item) }
            return true
        }
        if accepted {
            wakeup.wake()
        } else {
            // Closed (the bus handle is gone): the item fails its continuation instead of hanging.
            item(self)
        }
    }

    private func takeWork() -> [@Sendable (DBusConnection) -> Void] {
        work.withLock { items in
            defer { items.removeAll() }
            return items
        }
    }

    /// Runs submitted work, dispatches what arrived, then waits for the bus, the wake-up pipe or sd-bus's next
    /// timeout (a method call's), until closed or the connection drops.
    private func loop() {
        while case .running = state.withLock({ $0 }) {
            for item in takeWork() { item(self) }
            guard let bus else { break }
            do {
                try SDBus.processPending(bus)
                let request = try SDBus.pollRequest(bus)
                var descriptors = [
                    pollfd(fd: request.fd, events: request.events, revents: 0),
                    pollfd(fd: wakeup.readEnd, events: Int16(POLLIN), revents: 0),
                ]
                _ = try poll(&descriptors, timeoutMilliseconds: request.timeoutMilliseconds)
                if descriptors[1].revents & Int16(POLLIN) != 0 { wakeup.drain() }
            } catch {
                break  // the connection dropped (or poll failed): shut down and report it
            }
        }
        shutDown()
    }

    private func shutDown() {
        let dropped = state.withLock { state -> Bool in
            if case .running = state { return true }
            return false
        }
        for slot in slots.values { SDBus.release(slot.slot) }
        slots.removeAll()
        if let bus { SDBus.close(bus) }
        bus = nil
        let calls = pendingCalls
        pendingCalls.removeAll()
        for call in calls.values {
            call.completion(
                .failure(DBusError(name: .disconnected, message: "connection closed", operation: call.operation))
            )
        }
        // From here on submit() runs items inline against the closed connection; drain what came before.
        let items = state.withLock { state -> [@Sendable (DBusConnection) -> Void] in
            state = .closed
            return takeWork()
        }
        for item in items { item(self) }
        if dropped { onDisconnect() }
    }

    private func nextCopy(_ message: OpaquePointer) throws(DBusError) -> DBusMessage {
        sequence += 1
        return try SDBus.read(message, sequence: sequence)
    }

    private func startCall(
        _ call: DBusMethodCall,
        timeout: Duration,
        completion: @escaping @Sendable (Result<DBusMessage, DBusError>) -> Void
    ) {
        let operation = "\(call.interface.split(separator: ".").last ?? "").\(call.member)"
        guard let bus else {
            completion(.failure(DBusError(name: .disconnected, message: "connection closed", operation: operation)))
            return
        }
        nextID += 1
        let id = nextID
        let callback = SDBusCallback { [unowned self] message in
            self.deliverReply(id, message)
            return 1
        }
        do {
            try SDBus.callAsync(bus, call, timeout: timeout, operation: operation, callback: callback)
        } catch {
            completion(.failure(error))
            return
        }
        pendingCalls[id] = PendingCall(operation: operation, callback: callback, completion: completion)
    }

    private func deliverReply(_ id: UInt64, _ message: OpaquePointer) {
        guard let call = pendingCalls.removeValue(forKey: id) else { return }
        if SDBus.isError(message) {
            call.completion(.failure(SDBus.replyError(message, operation: call.operation)))
            return
        }
        do {
            call.completion(.success(try nextCopy(message)))
        } catch {
            call.completion(.failure(error))
        }
    }

    private func installMatch(
        _ rule: String,
        handler: @escaping @Sendable (DBusMessage) -> Void
    ) -> Result<UInt64, DBusError> {
        guard let bus else {
            return .failure(DBusError(name: .disconnected, message: "connection closed", operation: "sd_bus_add_match"))
        }
        let callback = SDBusCallback { [unowned self] message in
            if let copied = try? self.nextCopy(message) { handler(copied) }
            return 0  // other matches may want it too
        }
        do {
            let slot = try SDBus.addMatch(bus, rule, callback: callback)
            nextID += 1
            slots[nextID] = Slot(slot: slot, callback: callback)
            return .success(nextID)
        } catch {
            return .failure(error)
        }
    }

    private func installObject(
        _ path: String,
        handler: @escaping @Sendable (DBusMessage) -> DBusMethodReply
    ) -> Result<UInt64, DBusError> {
        guard let bus else {
            return .failure(
                DBusError(name: .disconnected, message: "connection closed", operation: "sd_bus_add_object")
            )
        }
        let callback = SDBusCallback { [unowned self] message in
            guard let bus = self.bus, let incoming = try? self.nextCopy(message), incoming.kind == .methodCall else {
                return 0
            }
            return SDBus.answer(bus, message, with: handler(incoming))
        }
        do {
            let slot = try SDBus.addObject(bus, path, callback: callback)
            nextID += 1
            slots[nextID] = Slot(slot: slot, callback: callback)
            return .success(nextID)
        } catch {
            return .failure(error)
        }
    }

    private func releaseSlot(_ id: UInt64) {
        if let slot = slots.removeValue(forKey: id) { SDBus.release(slot.slot) }
    }
}
