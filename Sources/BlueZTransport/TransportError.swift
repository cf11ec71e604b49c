/// A failure of the BlueZ transport: what went wrong, where, and the D-Bus error underneath.
public struct TransportError: Error, Sendable, CustomStringConvertible {
    /// Closed set of our own failure states.
    public enum Code: String, Sendable, Hashable {
        /// The system bus could not be reached (no `DBUS_SYSTEM_BUS_ADDRESS`, no socket, access denied).
        case busUnavailable
        /// Nobody owns `org.bluez` on the bus.
        case bluetoothdNotRunning
        /// bluetoothd has no adapter (or not the one asked for).
        case noAdapter
        /// The adapter is soft- or hard-blocked by rfkill.
        case blockedByRfkill
        /// Powering the adapter on failed for another reason.
        case adapterNotReady
        /// Discovery could not be started (after the staged recovery).
        case discoveryFailed
        /// The scanner watchdog saw no advertisement for too long and recovery did not help.
        case scannerWedged
        /// A connection attempt failed after its retries.
        case connectionFailed
        /// Pairing was refused or failed.
        case pairingFailed
        /// The D-Bus connection dropped.
        case busDisconnected
        /// A characteristic has no descriptor of the UUID asked for, or reading one failed.
        case descriptorUnavailable
    }

    public var code: Code
    public var message: String
    /// The D-Bus error underneath, if any (its name drives the retry class).
    public var cause: DBusError?
    public var file: String
    public var line: Int

    public init(_ code: Code, _ message: String, cause: DBusError? = nil, file: String = #fileID, line: Int = #line) {
        self.code = code
        self.message = message
        self.cause = cause
        self.file = file
        self.line = line
    }

    public var description: String {
        var text = message
        if let cause { text += " (\(cause))" }
        return text
    }

    /// The exit status `carebridge` uses for this failure (documented in the README).
    public var exitCode: Int32 {
        switch code {
        case .busUnavailable, .bluetoothdNotRunning, .busDisconnected: 69  // EX_UNAVAILABLE
        case .noAdapter: 69
        case .blockedByRfkill, .adapterNotReady: 78  // EX_CONFIG
        case .discoveryFailed, .scannerWedged: 75  // EX_TEMPFAIL: systemd restarts us
        case .connectionFailed, .pairingFailed, .descriptorUnavailable: 75
        }
    }
}

/// How to react to a D-Bus error (bluez-dbus.md §7).
public enum ErrorClass: String, Sendable, Hashable {
    /// `le-connection-abort-by-local`, generic `Failed`: retry after a short back-off.
    case transient
    /// `InProgress`: another client holds a connect or discovery; back off longer, escalate if it persists.
    case contention
    /// `UnknownObject` / `UnknownMethod` on a device: its object vanished; re-resolve from the mirror.
    case objectMissing
    /// No reply within the timeout.
    case timeout
    /// `NotReady`, "not found": the adapter needs a reset.
    case needsReset
    /// rfkill, permissions: retrying will not help.
    case configuration
    /// Anything else: fail this attempt.
    case fatal

    public init(_ error: DBusError) {
        let text = error.message.lowercased()
        switch error.name {
        case .inProgress: self = .contention
        case .unknownObject, .unknownMethod: self = .objectMissing
        case .noReply, .timeout, .timedOut: self = .timeout
        case .notReady: self = .needsReset
        case .accessDenied, .notPermitted: self = .configuration
        case .failed:
            if text.contains("rfkill") {
                self = .configuration
            } else if text.contains("not found") {
                self = .needsReset
            } else {
                self = .transient
            }
        default:
            if text.contains("le-connection-abort-by-local") || text.contains("software caused connection abort") {
                self = .transient
            } else {
                self = .fatal
            }
        }
    }

    /// Whether another attempt may succeed.
    public var isRetryable: Bool {
        switch self {
        case .transient, .contention, .objectMissing, .timeout, .needsReset: true
        case .configuration, .fatal: false
        }
    }
}

/// Exponential back-off with a ceiling, per error class.
public struct Backoff: Sendable, Hashable {
    public var initial: Duration
    public var factor: Int
    public var maximum: Duration
    public var attempts: Int

    public init(initial: Duration, factor: Int = 2, maximum: Duration, attempts: Int) {
        self.initial = initial
        self.factor = factor
        self.maximum = maximum
        self.attempts = attempts
    }

    /// Delay before retry number `attempt` (1-based).
    public func delay(beforeRetry attempt: Int) -> Duration {
        var delay = initial
        if attempt > 1 {
            for _ in 1..<attempt { delay = min(delay * factor, maximum) }
        }
        return min(delay, maximum)
    }

    /// The back-off bluez-dbus.md §7 gives for each class.
    public static func `for`(_ errorClass: ErrorClass) -> Backoff {
        switch errorClass {
        case .transient: Backoff(initial: .milliseconds(250), maximum: .seconds(2), attempts: 4)
        case .contention: Backoff(initial: .seconds(1), maximum: .seconds(8), attempts: 4)
        case .objectMissing: Backoff(initial: .milliseconds(500), maximum: .seconds(2), attempts: 3)
        case .timeout: Backoff(initial: .seconds(1), maximum: .seconds(4), attempts: 3)
        case .needsReset: Backoff(initial: .milliseconds(1500), maximum: .seconds(6), attempts: 4)
        case .configuration, .fatal: Backoff(initial: .zero, maximum: .zero, attempts: 1)
        }
    }
}
