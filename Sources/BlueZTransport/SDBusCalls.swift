// The one file that calls sd-bus (libsystemd). Every wrapper checks the negative-errno convention and throws a
// `DBusError` naming the call, copies strings and byte arrays out of messages before they are released, and frees
// every `sd_bus_error`. Handles (`sd_bus *`, `sd_bus_message *`, `sd_bus_slot *`) leave it only as opaque values
// for the bus thread (`DBusConnection.swift`) to pass back; nothing else here is visible outside the module.

internal import CSystemd

#if canImport(Glibc)
import Glibc
#endif

/// The target of an sd-bus callback: runs on the bus thread with the message (a method reply, a signal, or an
/// incoming method call) and returns what sd-bus expects from a handler (1: handled, 0: not ours, < 0: -errno).
/// Whoever registers one keeps it alive until its slot is released.
final class SDBusCallback {
    let body: (OpaquePointer) -> Int32

    init(_ body: @escaping (OpaquePointer) -> Int32) { self.body = body }

    var userdata: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }
}

/// The C entry point of every callback we register.
private func sdBusCallbackTrampoline(
    _ message: OpaquePointer?,
    _ userdata: UnsafeMutableRawPointer?,
    _ error: UnsafeMutablePointer<sd_bus_error>?
) -> Int32 {
    guard let message, let userdata else { return 0 }
    return Unmanaged<SDBusCallback>.fromOpaque(userdata).takeUnretainedValue().body(message)
}

/// Checked wrappers of the sd-bus calls we make.
enum SDBus {
    // MARK: - Connections

    /// Opens a connection (`.system` honours `DBUS_SYSTEM_BUS_ADDRESS`) and waits for the bus's `Hello`.
    /// - Returns: the bus handle and our unique name (`:1.42`).
    static func open(_ address: DBusBusAddress) throws(DBusError) -> (bus: OpaquePointer, uniqueName: String) {
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
        return (bus, unique.map { String(cString: $0) } ?? "")
    }

    /// Flushes what is queued, closes and releases the connection.
    static func close(_ bus: OpaquePointer) {
        sd_bus_flush_close_unref(bus)
    }

    /// Dispatches everything sd-bus has read or can read without blocking (callbacks run from here).
    /// - Throws: when the connection is gone.
    static func processPending(_ bus: OpaquePointer) throws(DBusError) {
        while true {
            let r = sd_bus_process(bus, nil)
            try check(r, "sd_bus_process")
            if r == 0 { return }
        }
    }

    /// What to poll for: the bus descriptor, its events and how long until sd-bus's next timeout (-1: none).
    static func pollRequest(
        _ bus: OpaquePointer
    ) throws(DBusError) -> (fd: Int32, events: Int16, timeoutMilliseconds: Int32) {
        let fd = sd_bus_get_fd(bus)
        try check(fd, "sd_bus_get_fd")
        let events = sd_bus_get_events(bus)
        try check(events, "sd_bus_get_events")
        var deadline: UInt64 = 0
        var timeout: Int32 = -1
        if sd_bus_get_timeout(bus, &deadline) > 0, deadline != UInt64.max {
            var now = timespec()
            clock_gettime(CLOCK_MONOTONIC, &now)
            let nowMicroseconds = UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1000
            timeout =
                deadline <= nowMicroseconds ? 0 : Int32(min((deadline - nowMicroseconds + 999) / 1000, 60_000))
        }
        return (fd, Int16(truncatingIfNeeded: events), timeout)
    }

    // MARK: - Calls, matches, objects

    /// Sends a method call; `callback` gets the reply (or the error sd-bus synthesises on timeout).
    static func callAsync(
        _ bus: OpaquePointer,
        _ call: DBusMethodCall,
        timeout: Duration,
        operation: String,
        callback: SDBusCallback
    ) throws(DBusError) {
        var message: OpaquePointer?
        try check(
            sd_bus_message_new_method_call(bus, &message, call.destination, call.path, call.interface, call.member),
            "sd_bus_message_new_method_call(\(operation))"
        )
        guard let message else { throw DBusError(name: .failed, message: "no message", operation: operation) }
        defer { sd_bus_message_unref(message) }
        for argument in call.arguments { try append(argument, to: message) }
        let microseconds =
            UInt64(max(0, timeout.components.seconds)) * 1_000_000
            + UInt64(max(0, timeout.components.attoseconds / 1_000_000_000_000))
        try check(
            sd_bus_call_async(bus, nil, message, sdBusCallbackTrampoline, callback.userdata, microseconds),
            "sd_bus_call_async(\(operation))"
        )
    }

    /// Adds a match rule; `callback` gets every matching message.
    /// - Returns: the slot; release it with `release(_:)` to remove the match.
    static func addMatch(
        _ bus: OpaquePointer,
        _ rule: String,
        callback: SDBusCallback
    ) throws(DBusError) -> OpaquePointer? {
        var slot: OpaquePointer?
        try check(
            sd_bus_add_match(bus, &slot, rule, sdBusCallbackTrampoline, callback.userdata),
            "sd_bus_add_match(\(rule))"
        )
        return slot
    }

    /// Exports an object path; `callback` gets every method call to it.
    static func addObject(
        _ bus: OpaquePointer,
        _ path: String,
        callback: SDBusCallback
    ) throws(DBusError) -> OpaquePointer? {
        var slot: OpaquePointer?
        try check(
            sd_bus_add_object(bus, &slot, path, sdBusCallbackTrampoline, callback.userdata),
            "sd_bus_add_object(\(path))"
        )
        return slot
    }

    /// Releases a match or object slot.
    static func release(_ slot: OpaquePointer?) {
        sd_bus_slot_unref(slot)
    }

    /// Sends the answer to an incoming method call.
    /// - Returns: 1 when sent, a negative errno otherwise (what a handler returns to sd-bus).
    static func answer(_ bus: OpaquePointer, _ call: OpaquePointer, with reply: DBusMethodReply) -> Int32 {
        switch reply {
        case .values(let values):
            var out: OpaquePointer?
            guard sd_bus_message_new_method_return(call, &out) >= 0, let out else { return -EIO }
            defer { sd_bus_message_unref(out) }
            do {
                for value in values { try append(value, to: out) }
            } catch {
                return -EINVAL
            }
            return sd_bus_send(bus, out, nil) < 0 ? -EIO : 1
        case .error(let name, let text):
            var error = sd_bus_error()
            defer { sd_bus_error_free(&error) }
            _ = sd_bus_error_set(&error, name.rawValue, text)
            return sd_bus_reply_method_error(call, &error) < 0 ? -EIO : 1
        }
    }

    // MARK: - Reading messages

    /// Copies a message out of sd-bus: header fields and every argument as `DBusValue`s.
    static func read(_ message: OpaquePointer, sequence: UInt64) throws(DBusError) -> DBusMessage {
        var type: UInt8 = 0
        try check(sd_bus_message_get_type(message, &type), "sd_bus_message_get_type")
        let kind: DBusMessage.Kind =
            switch Int(type) {
            case SD_BUS_MESSAGE_METHOD_CALL: .methodCall
            case SD_BUS_MESSAGE_METHOD_RETURN: .methodReturn
            case SD_BUS_MESSAGE_METHOD_ERROR: .methodError
            default: .signal
            }
        var arguments: [DBusValue] = []
        while let value = try readValue(message) { arguments.append(value) }
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

    /// Whether a reply is an error reply (then `replyError` describes it).
    static func isError(_ message: OpaquePointer) -> Bool {
        sd_bus_message_is_method_error(message, nil) > 0
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

    static func replyError(_ message: OpaquePointer, operation: String) -> DBusError {
        guard let error = sd_bus_message_get_error(message) else {
            return DBusError(name: .failed, message: "unknown error", operation: operation)
        }
        let name = error.pointee.name.map { String(cString: $0) } ?? "org.freedesktop.DBus.Error.Failed"
        let text = error.pointee.message.map { String(cString: $0) } ?? ""
        return DBusError(name: DBusErrorName(name), message: text, operation: operation)
    }

    // MARK: - Service manager

    /// `sd_notify(0, state)`; true when the service manager received it (false outside systemd).
    static func notify(_ state: String) -> Bool {
        sd_notify(0, state) > 0
    }

    /// The watchdog interval systemd asked for (`WatchdogSec`), nil when the watchdog is off.
    static func watchdogInterval() -> Duration? {
        var microseconds: UInt64 = 0
        guard sd_watchdog_enabled(0, &microseconds) > 0, microseconds > 0 else { return nil }
        return .microseconds(Int64(microseconds))
    }
}
