public import Foundation
import Synchronization

/// Slows password guessing: after ``freeAttempts`` failures for one login name, or ten times as many from one
/// address, further attempts wait, doubling from ``baseDelay`` up to ``maximumDelay``. A success clears the name's
/// count. The clock is the caller's (`now`), so tests move time instead of waiting.
public final class LoginThrottle: Sendable {
    public static let freeAttempts = 5
    public static let baseDelay: TimeInterval = 30
    public static let maximumDelay: TimeInterval = 15 * 60
    /// Failures older than this are forgotten.
    public static let window: TimeInterval = 3600

    private struct Failures {
        var count = 0
        var last = Date.distantPast
    }

    private let state = Mutex<[String: Failures]>([:])

    public init() {}

    /// Seconds to wait before this name may try again from this address; nil when it may try now.
    public func retryAfter(user: String, address: String, now: Date) -> TimeInterval? {
        state.withLock { table in
            let waits = [
                Self.wait(table["user:" + user.lowercased()], free: Self.freeAttempts, now: now),
                Self.wait(table["addr:" + address], free: Self.freeAttempts * 10, now: now),
            ].compactMap { $0 }
            return waits.max()
        }
    }

    public func recordFailure(user: String, address: String, now: Date) {
        state.withLock { table in
            for key in ["user:" + user.lowercased(), "addr:" + address] {
                var failures = table[key] ?? Failures()
                if now.timeIntervalSince(failures.last) > Self.window { failures = Failures() }
                failures.count += 1
                failures.last = now
                table[key] = failures
            }
            if table.count > 100_000 { table = table.filter { now.timeIntervalSince($0.value.last) <= Self.window } }
        }
    }

    public func recordSuccess(user: String) {
        _ = state.withLock { $0.removeValue(forKey: "user:" + user.lowercased()) }
    }

    private static func wait(_ failures: Failures?, free: Int, now: Date) -> TimeInterval? {
        guard let failures, failures.count >= free, now.timeIntervalSince(failures.last) <= window else { return nil }
        let exponent = min(failures.count - free, 10)
        let delay = min(baseDelay * pow(2, Double(exponent)), maximumDelay)
        let remaining = failures.last.addingTimeInterval(delay).timeIntervalSince(now)
        return remaining > 0 ? remaining : nil
    }
}
