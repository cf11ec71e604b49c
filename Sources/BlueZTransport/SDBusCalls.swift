// The one file that talks to sd-bus (libsystemd). Everything here checks the negative-errno convention,
// copies strings and byte arrays out of messages before they are released, frees every sd_bus_error, and
// hands typed Swift values (`DBusValue`, `DBusMessage`) to the rest of the module. No C pointer leaves it.
//
// Threading: sd-bus objects may be used by one thread at a time, so a connection owns one bus thread that
// loops `sd_bus_process` and `poll` on the bus fd plus an eventfd for work submitted from other threads.
// Async callers are bridged with continuations.

internal import CSystemd
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
    // Owned by the bus thread after `open`; guarded by the thread discipline, not by a lock.
    private var bus: OpaquePointer?
    private var sequence: UInt64 = 0
    private var pendingCalls: [UInt64: CallBox] = [:]
    private var matches: [UInt64: HandlerBox] = [:]
    private var objects: [UInt64: ObjectBox] = [:]
    private var nextID: UInt64 = 0

    private let work = Mutex<[@Sendable (DBusConnection) -> Void]>([])
    private let state = Mutex<State>(.running)
    /// Self-pipe that wakes the bus thread's poll when work is submitted.
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let onDisconnect: @Sendable () -> Void
    /// The unique name the bus gave us (`:1.42`).
    public let uniqueName: String

    private enum State { case running, closing, closed }

    private init(
        bus: OpaquePointer,
        wakeRead: Int32,
        wakeWrite: Int32,
        uniqueName: String,
        onDisconnect: @escaping @Sendable () -> Void
    ) {
        self.bus = bus
        self.wakeRead = wakeRead
        self.wakeWrite = wakeWrite
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
        var bus: OpaquePointer?
        switch address {
        case .system:
            try check(sd_bus_open_system(&bus), "sd_bus_open_system")
        case .address(let string):
            try check(sd_bus_new(&bus), "sd_bus_new")
            do {
                try check(string.withCString { sd_bus_set_address(bus, $0) }, "sd_bus_set_address")
                try check(sd_bus_set_bus_client(bus, 1), "sd_bus_set_bus_client")
                try check(sd_bus_start(bus), "sd_bus_start")
            } catch {
                sd_bus_unref(bus)
                throw error
            }
        }
        guard let bus else { throw DBusError(name: .disconnected, message: "no bus", operation: "sd_bus_open") }
        var unique: UnsafePointer<CChar>?
        let r = sd_bus_get_unique_name(bus, &unique)  // waits for Hello
        if r < 0 {
            sd_bus_flush_close_unref(bus)
            throw errnoError(r, "sd_bus_get_unique_name")
        }
        let name = unique.map { String(cString: $0) } ?? ""
        var pipeFDs: [Int32] = [-1, -1]
        if pipe(&pipeFDs) < 0 {
            sd_bus_flush_close_unref(bus)
            throw errnoError(-errno, "pipe")
        }
        for fd in pipeFDs {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        let connection = DBusConnection(
            bus: bus,
            wakeRead: pipeFDs[0],
            wakeWrite: pipeFDs[1],
            uniqueName: name,
            onDisconnect: onDisconnect
        )
        let thread = Thread { connection.loop() }
        thread.name = "carebridge-dbus"
        thread.start()
        return connection
    }

    deinit {
        Glibc.close(wakeRead)
        Glibc.close(wakeWrite)
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
    ) async throws(DBusError)
        -> UInt64
    {
        let result: Result<UInt64, DBusError> = await withCheckedContinuation { continuation in
            submit { connection in continuation.resume(returning: connection.installMatch(rule, handler: handler)) }
        }
        return try result.get()
    }

    /// Removes a match added with `addMatch`.
    public func removeMatch(_ id: UInt64) {
        submit { connection in
            if let box = connection.matches.removeValue(forKey: id) { sd_bus_slot_unref(box.slot) }
        }
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
        submit { connection in
            if let box = connection.objects.removeValue(forKey: id) { sd_bus_slot_unref(box.slot) }
        }
    }

    /// Flushes and closes the connection; pending calls fail with `Disconnected`.
    public func close() {
        let wasRunning = state.withLock { state -> Bool in
            guard case .running = state else { return false }
            state = .closing
            return true
        }
        if wasRunning { wake() }
    }

    // MARK: - Bus thread

    private func submit(_ item: @escaping @Sendable (DBusConnection) -> Void) {
        let accepted = state.withLock { state -> Bool in
            if case .closed = state { return false }
            work.withLock { $0.append(item) }
            return true
        }
        if accepted {
            wake()
        } else {
            // Closed (the bus pointer is gone): the item fails its continuation instead of hanging.
            item(self)
        }
    }

    private func wake() {
        var one: UInt64 = 1
        _ = write(wakeWrite, &one, 8)
    }

    private func loop() {
        while true {
            if case .closing = state.withLock({ $0 }) { break }
            let items = work.withLock { items -> [@Sendable (DBusConnection) -> Void] in
                defer { items.removeAll() }
                return items
            }
            for item in items { item(self) }
            guard let bus else { break }
            var dropped = false
            while true {
                let r = sd_bus_process(bus, nil)
                if r < 0 {
                    dropped = true
                    break
                }
                if r == 0 { break }
            }
            if dropped { break }
            var fds = [
                pollfd(fd: sd_bus_get_fd(bus), events: Int16(truncatingIfNeeded: sd_bus_get_events(bus)), revents: 0),
                pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0),
            ]
            var deadline: UInt64 = 0
            var timeoutMS: Int32 = -1
            if sd_bus_get_timeout(bus, &deadline) > 0, deadline != UInt64.max {
                var now = timespec()
                clock_gettime(CLOCK_MONOTONIC, &now)
                let nowUS = UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1000
                timeoutMS = deadline <= nowUS ? 0 : Int32(min((deadline - nowUS + 999) / 1000, 60_000))
            }
            _ = poll(&fds, 2, timeoutMS)
            if fds[1].revents & Int16(POLLIN) != 0 {
                var drain = [UInt8](repeating: 0, count: 256)
                while read(wakeRead, &drain, drain.count) > 0 {}
            }
        }
        shutDown()
    }

    private func shutDown() {
        let dropped = state.withLock { state -> Bool in
            if case .running = state { return true }
            return false
        }
        for (_, box) in matches { sd_bus_slot_unref(box.slot) }
        for (_, box) in objects { sd_bus_slot_unref(box.slot) }
        matches.removeAll()
        objects.removeAll()
        if let bus { sd_bus_flush_close_unref(bus) }
        bus = nil
        let calls = pendingCalls
        pendingCalls.removeAll()
        for (_, box) in calls {
            box.complete(
                .failure(DBusError(name: .disconnected, message: "connection closed", operation: box.operation))
            )
        }
        // From here on submit() runs items inline against the closed connection; drain what came before.
        let items = state.withLock { state -> [@Sendable (DBusConnection) -> Void] in
            state = .closed
            return work.withLock { items in
                defer { items.removeAll() }
                return items
            }
        }
        for item in items { item(self) }
        if dropped { onDisconnect() }
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
        var message: OpaquePointer?
        var r = sd_bus_message_new_method_call(bus, &message, call.destination, call.path, call.interface, call.member)
        guard r >= 0, let message else {
            completion(.failure(Self.errnoError(r, "sd_bus_message_new_method_call(\(operation))")))
            return
        }
        defer { sd_bus_message_unref(message) }
        do {
            for argument in call.arguments { try Self.append(argument, to: message) }
        } catch {
            completion(.failure(error))
            return
        }
        nextID += 1
        let box = CallBox(id: nextID, owner: self, operation: operation, completion: completion)
        let micros =
            UInt64(max(0, timeout.components.seconds)) * 1_000_000
            + UInt64(max(0, timeout.components.attoseconds / 1_000_000_000_000))
        r = sd_bus_call_async(bus, nil, message, callReplied, Unmanaged.passUnretained(box).toOpaque(), micros)
        if r < 0 {
            completion(.failure(Self.errnoError(r, "sd_bus_call_async(\(operation))")))
            return
        }
        pendingCalls[box.id] = box
    }

    fileprivate func deliverReply(_ box: CallBox, _ message: OpaquePointer?) {
        guard pendingCalls.removeValue(forKey: box.id) != nil else { return }
        guard let message else {
            box.complete(.failure(DBusError(name: .noReply, message: "no reply", operation: box.operation)))
            return
        }
        if sd_bus_message_is_method_error(message, nil) > 0 {
            box.complete(.failure(Self.replyError(message, operation: box.operation)))
            return
        }
        do {
            box.complete(.success(try copy(message)))
        } catch {
            box.complete(.failure(error))
        }
    }

    private func installMatch(
        _ rule: String,
        handler: @escaping @Sendable (DBusMessage) -> Void
    ) -> Result<
        UInt64, DBusError
    > {
        guard let bus else {
            return .failure(DBusError(name: .disconnected, message: "connection closed", operation: "sd_bus_add_match"))
        }
        nextID += 1
        let box = HandlerBox(owner: self, handler: handler)
        var slot: OpaquePointer?
        let r = sd_bus_add_match(bus, &slot, rule, signalArrived, Unmanaged.passUnretained(box).toOpaque())
        if r < 0 { return .failure(Self.errnoError(r, "sd_bus_add_match(\(rule))")) }
        box.slot = slot
        matches[nextID] = box
        return .success(nextID)
    }

    fileprivate func deliverSignal(_ box: HandlerBox, _ message: OpaquePointer?) {
        guard let message, let copied = try? copy(message) else { return }
        box.handler(copied)
    }

    private func installObject(
        _ path: String,
        handler: @escaping @Sendable (DBusMessage) -> DBusMethodReply
    )
        -> Result<UInt64, DBusError>
    {
        guard let bus else {
            return .failure(
                DBusError(name: .disconnected, message: "connection closed", operation: "sd_bus_add_object")
            )
        }
        nextID += 1
        let box = ObjectBox(owner: self, handler: handler)
        var slot: OpaquePointer?
        let r = sd_bus_add_object(bus, &slot, path, methodCalled, Unmanaged.passUnretained(box).toOpaque())
        if r < 0 { return .failure(Self.errnoError(r, "sd_bus_add_object(\(path))")) }
        box.slot = slot
        objects[nextID] = box
        return .success(nextID)
    }

    fileprivate func answer(_ box: ObjectBox, _ message: OpaquePointer?) -> Int32 {
        guard let message, let bus, let incoming = try? copy(message) else { return 0 }
        guard incoming.kind == .methodCall else { return 0 }
        let reply = box.handler(incoming)
        switch reply {
        case .values(let values):
            var out: OpaquePointer?
            guard sd_bus_message_new_method_return(message, &out) >= 0, let out else { return -EIO }
            defer { sd_bus_message_unref(out) }
            do {
                for value in values { try Self.append(value, to: out) }
            } catch {
                return -EINVAL
            }
            return sd_bus_send(bus, out, nil) < 0 ? -EIO : 1
        case .error(let name, let text):
            var error = sd_bus_error()
            defer { sd_bus_error_free(&error) }
            _ = sd_bus_error_set(&error, name.rawValue, text)
            return sd_bus_reply_method_error(message, &error) < 0 ? -EIO : 1
        }
    }

    // MARK: - Reading messages

    private func copy(_ message: OpaquePointer) throws(DBusError) -> DBusMessage {
        sequence += 1
        var type: UInt8 = 0
        try Self.check(sd_bus_message_get_type(message, &type), "sd_bus_message_get_type")
        let kind: DBusMessage.Kind =
            switch Int(type) {
            case SD_BUS_MESSAGE_METHOD_CALL: .methodCall
            case SD_BUS_MESSAGE_METHOD_RETURN: .methodReturn
            case SD_BUS_MESSAGE_METHOD_ERROR: .methodError
            default: .signal
            }
        var arguments: [DBusValue] = []
        while let value = try Self.readValue(message) { arguments.append(value) }
        return DBusMessage(
            kind: kind,
            sequence: sequence,
            sender: sd_bus_message_get_sender(message).map { String(cString: $0) },
            path: sd_bus_message_get_path(message).map { String(cString: $0) },
            interface: sd_bus_message_get_interface(message).map { String(cString: $0) },
            member: sd_bus_message_get_member(message).map { String(cString: $0) },
            arguments: arguments
        )
    }

    private static func readValue(_ m: OpaquePointer) throws(DBusError) -> DBusValue? {
        var type: CChar = 0
        var contentsPointer: UnsafePointer<CChar>?
        let r = sd_bus_message_peek_type(m, &type, &contentsPointer)
        try check(r, "sd_bus_message_peek_type")
        if r == 0 { return nil }
        let contents = contentsPointer.map { String(cString: $0) } ?? ""
        switch UInt8(bitPattern: type) {
        case UInt8(ascii: "y"):
            var v: UInt8 = 0
            try check(sd_bus_message_read_basic(m, type, &v), "read y")
            return .byte(v)
        case UInt8(ascii: "b"):
            var v: Int32 = 0
            try check(sd_bus_message_read_basic(m, type, &v), "read b")
            return .boolean(v != 0)
        case UInt8(ascii: "n"):
            var v: Int16 = 0
            try check(sd_bus_message_read_basic(m, type, &v), "read n")
            return .int16(v)
        case UInt8(ascii: "q"):
            var v: UInt16 = 0
            try check(sd_bus_message_read_basic(m, type, &v), "read q")
            return .uint16(v)
        case UInt8(ascii: "i"), UInt8(ascii: "h"):
            var v: Int32 = 0
            try check(sd_bus_message_read_basic(m, type, &v), "read i")
            return .int32(v)
        case UInt8(ascii: "u"):
            var v: UInt32 = 0
            try check(sd_bus_message_read_basic(m, type, &v), "read u")
            return .uint32(v)
        case UInt8(ascii: "x"):
            var v: Int64 = 0
            try check(sd_bus_message_read_basic(m, type, &v), "read x")
            return .int64(v)
        case UInt8(ascii: "t"):
            var v: UInt64 = 0
            try check(sd_bus_message_read_basic(m, type, &v), "read t")
            return .uint64(v)
        case UInt8(ascii: "d"):
            var v: Double = 0
            try check(sd_bus_message_read_basic(m, type, &v), "read d")
            return .double(v)
        case UInt8(ascii: "s"), UInt8(ascii: "o"), UInt8(ascii: "g"):
            var p: UnsafePointer<CChar>?
            try check(sd_bus_message_read_basic(m, type, &p), "read string")
            let s = p.map { String(cString: $0) } ?? ""
            switch UInt8(bitPattern: type) {
            case UInt8(ascii: "o"): return .objectPath(s)
            case UInt8(ascii: "g"): return .signature(s)
            default: return .string(s)
            }
        case UInt8(ascii: "a"):
            if contents == "y" {
                var pointer: UnsafeRawPointer?
                var size = 0
                try check(sd_bus_message_read_array(m, CChar(UInt8(ascii: "y")), &pointer, &size), "read ay")
                guard let pointer, size > 0 else { return .bytes([]) }
                return .bytes(Array(UnsafeRawBufferPointer(start: pointer, count: size)))
            }
            try check(sd_bus_message_enter_container(m, type, contents), "enter a\(contents)")
            if contents.hasPrefix("{") {
                let inner = String(contents.dropFirst().dropLast())
                let keySignature = String(inner.prefix(1))
                let valueSignature = String(inner.dropFirst())
                var entries: [DBusValue.DictionaryEntry] = []
                while true {
                    let e = sd_bus_message_enter_container(m, CChar(UInt8(ascii: "e")), inner)
                    try check(e, "enter e\(inner)")
                    if e == 0 { break }
                    guard let key = try readValue(m), let value = try readValue(m) else {
                        throw DBusError(
                            name: .init("System.Error.EBADMSG"),
                            message: "short dict entry",
                            operation: "read"
                        )
                    }
                    try check(sd_bus_message_exit_container(m), "exit e")
                    entries.append(.init(key, value))
                }
                try check(sd_bus_message_exit_container(m), "exit a")
                return .dictionary(key: keySignature, value: valueSignature, entries)
            }
            var values: [DBusValue] = []
            while let value = try readValue(m) { values.append(value) }
            try check(sd_bus_message_exit_container(m), "exit a")
            return .array(element: contents, values)
        case UInt8(ascii: "v"), UInt8(ascii: "r"):
            try check(sd_bus_message_enter_container(m, type, contents), "enter \(contents)")
            var values: [DBusValue] = []
            while let value = try readValue(m) { values.append(value) }
            try check(sd_bus_message_exit_container(m), "exit")
            if UInt8(bitPattern: type) == UInt8(ascii: "v") {
                guard let inner = values.first else {
                    throw DBusError(name: .init("System.Error.EBADMSG"), message: "empty variant", operation: "read v")
                }
                return .variant(inner)
            }
            return .structure(values)
        default:
            try check(sd_bus_message_skip(m, nil), "skip")
            return .string("<unsupported \(Character(UnicodeScalar(UInt8(bitPattern: type))))>")
        }
    }

    // MARK: - Writing messages

    private static func append(_ value: DBusValue, to m: OpaquePointer) throws(DBusError) {
        func basic<T: BitwiseCopyable>(_ code: String, _ v: T) throws(DBusError) {
            let type = CChar(code.utf8.first!)
            let r = withUnsafeBytes(of: v) { sd_bus_message_append_basic(m, type, $0.baseAddress) }
            try check(r, "append \(code)")
        }
        func string(_ code: String, _ s: String) throws(DBusError) {
            let type = CChar(code.utf8.first!)
            try check(s.withCString { sd_bus_message_append_basic(m, type, $0) }, "append \(code)")
        }
        func container(_ code: String, _ contents: String, _ body: () throws(DBusError) -> Void) throws(DBusError) {
            let type = CChar(code.utf8.first!)
            try check(sd_bus_message_open_container(m, type, contents), "open \(code)\(contents)")
            try body()
            try check(sd_bus_message_close_container(m), "close \(code)\(contents)")
        }
        switch value {
        case .byte(let v): try basic("y", v)
        case .boolean(let v): try basic("b", Int32(v ? 1 : 0))
        case .int16(let v): try basic("n", v)
        case .uint16(let v): try basic("q", v)
        case .int32(let v): try basic("i", v)
        case .uint32(let v): try basic("u", v)
        case .int64(let v): try basic("x", v)
        case .uint64(let v): try basic("t", v)
        case .double(let v): try basic("d", v)
        case .string(let s): try string("s", s)
        case .objectPath(let s): try string("o", s)
        case .signature(let s): try string("g", s)
        case .bytes(let bytes):
            let r = bytes.withUnsafeBytes {
                sd_bus_message_append_array(m, CChar(UInt8(ascii: "y")), $0.baseAddress, $0.count)
            }
            try check(r, "append ay")
        case .array(let element, let values):
            try container("a", element) { () throws(DBusError) in
                for v in values { try append(v, to: m) }
            }
        case .dictionary(let key, let valueSignature, let entries):
            try container("a", "{" + key + valueSignature + "}") { () throws(DBusError) in
                for entry in entries {
                    try container("e", key + valueSignature) { () throws(DBusError) in
                        try append(entry.key, to: m)
                        try append(entry.value, to: m)
                    }
                }
            }
        case .variant(let inner):
            try container("v", inner.signature) { () throws(DBusError) in try append(inner, to: m) }
        case .structure(let fields):
            try container("r", fields.map(\.signature).joined()) { () throws(DBusError) in
                for f in fields { try append(f, to: m) }
            }
        }
    }

    // MARK: - Errors

    private static func check(_ r: Int32, _ operation: @autoclosure () -> String) throws(DBusError) {
        if r < 0 { throw errnoError(r, operation()) }
    }

    private static func errnoError(_ r: Int32, _ operation: String) -> DBusError {
        let code = r < 0 ? -r : r
        let text = String(cString: strerror(code))
        return DBusError(name: DBusErrorName(errnoName(code)), message: text, operation: operation, errno: code)
    }

    private static func errnoName(_ code: Int32) -> String {
        switch code {
        case ENOENT: "System.Error.ENOENT"
        case ECONNREFUSED: "System.Error.ECONNREFUSED"
        case EACCES: "System.Error.EACCES"
        case EPERM: "System.Error.EPERM"
        case ETIMEDOUT: "System.Error.ETIMEDOUT"
        case ENOTCONN: "System.Error.ENOTCONN"
        case ECONNRESET: "System.Error.ECONNRESET"
        default: "System.Error.\(code)"
        }
    }

    private static func replyError(_ message: OpaquePointer, operation: String) -> DBusError {
        guard let error = sd_bus_message_get_error(message) else {
            return DBusError(name: .failed, message: "unknown error", operation: operation)
        }
        let name = error.pointee.name.map { String(cString: $0) } ?? "org.freedesktop.DBus.Error.Failed"
        let text = error.pointee.message.map { String(cString: $0) } ?? ""
        return DBusError(name: DBusErrorName(name), message: text, operation: operation)
    }
}

// MARK: - Callback boxes (userdata for the C callbacks)

private final class CallBox: @unchecked Sendable {
    let id: UInt64
    unowned let owner: DBusConnection
    let operation: String
    let completion: @Sendable (Result<DBusMessage, DBusError>) -> Void

    init(
        id: UInt64,
        owner: DBusConnection,
        operation: String,
        completion: @escaping @Sendable (Result<DBusMessage, DBusError>) -> Void
    ) {
        self.id = id
        self.owner = owner
        self.operation = operation
        self.completion = completion
    }

    func complete(_ result: Result<DBusMessage, DBusError>) { completion(result) }
}

private final class HandlerBox: @unchecked Sendable {
    unowned let owner: DBusConnection
    let handler: @Sendable (DBusMessage) -> Void
    var slot: OpaquePointer?

    init(owner: DBusConnection, handler: @escaping @Sendable (DBusMessage) -> Void) {
        self.owner = owner
        self.handler = handler
    }
}

private final class ObjectBox: @unchecked Sendable {
    unowned let owner: DBusConnection
    let handler: @Sendable (DBusMessage) -> DBusMethodReply
    var slot: OpaquePointer?

    init(owner: DBusConnection, handler: @escaping @Sendable (DBusMessage) -> DBusMethodReply) {
        self.owner = owner
        self.handler = handler
    }
}

private func callReplied(
    _ message: OpaquePointer?,
    _ userdata: UnsafeMutableRawPointer?,
    _ error: UnsafeMutablePointer<sd_bus_error>?
) -> Int32 {
    guard let userdata else { return 0 }
    let box = Unmanaged<CallBox>.fromOpaque(userdata).takeUnretainedValue()
    box.owner.deliverReply(box, message)
    return 1
}

private func signalArrived(
    _ message: OpaquePointer?,
    _ userdata: UnsafeMutableRawPointer?,
    _ error: UnsafeMutablePointer<sd_bus_error>?
) -> Int32 {
    guard let userdata else { return 0 }
    let box = Unmanaged<HandlerBox>.fromOpaque(userdata).takeUnretainedValue()
    box.owner.deliverSignal(box, message)
    return 0
}

private func methodCalled(
    _ message: OpaquePointer?,
    _ userdata: UnsafeMutableRawPointer?,
    _ error: UnsafeMutablePointer<sd_bus_error>?
) -> Int32 {
    guard let userdata else { return 0 }
    let box = Unmanaged<ObjectBox>.fromOpaque(userdata).takeUnretainedValue()
    return box.owner.answer(box, message)
}

// MARK: - sd_notify

/// Talks to the service manager (`sd_notify`); a no-op outside systemd (`NOTIFY_SOCKET` unset).
public enum ServiceManager {
    /// Sends a notification such as `READY=1`, `WATCHDOG=1`, `STATUS=…`, `STOPPING=1`.
    /// - Returns: true when systemd received it.
    @discardableResult
    public static func notify(_ state: String) -> Bool {
        sd_notify(0, state) > 0
    }

    /// The watchdog interval systemd asked for (`WatchdogSec`), or nil when the watchdog is off.
    public static var watchdogInterval: Duration? {
        var usec: UInt64 = 0
        guard sd_watchdog_enabled(0, &usec) > 0, usec > 0 else { return nil }
        return .microseconds(Int64(usec))
    }
}
