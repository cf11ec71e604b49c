/// Talks to the service manager (`sd_notify`); a no-op outside systemd (`NOTIFY_SOCKET` unset).
public enum ServiceManager {
    /// Sends a notification such as `READY=1`, `WATCHDOG=1`, `STATUS=…`, `STOPPING=1`.
    /// - Returns: true when systemd received it.
    @discardableResult
    public static func notify(_ state: String) -> Bool {
        SDBus.notify(state)
    }

    /// The watchdog interval systemd asked for (`WatchdogSec`), or nil when the watchdog is off.
    public static var watchdogInterval: Duration? {
        SDBus.watchdogInterval()
    }
}
