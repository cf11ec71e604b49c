/// Checks `condition` every `interval` (real time) until it holds.
/// - Returns: whether it held before `timeout` passed (checked a last time at the deadline).
package func eventually(
    timeout: Duration = .seconds(30),
    interval: Duration = .milliseconds(20),
    _ condition: () async throws -> Bool
) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: interval)
    }
    return try await condition()
}

/// Waits until `condition` holds.
/// - Throws: ``EventuallyTimeout`` naming `what` when `timeout` passed first.
package func waitUntil(
    _ what: String,
    timeout: Duration = .seconds(180),
    interval: Duration = .milliseconds(20),
    _ condition: () async throws -> Bool
) async throws {
    guard try await eventually(timeout: timeout, interval: interval, condition) else {
        throw EventuallyTimeout(what: what, timeout: timeout)
    }
}

/// A condition that did not come true in time.
package struct EventuallyTimeout: Error, CustomStringConvertible {
    package var what: String
    package var timeout: Duration
    package var description: String { "timed out after \(timeout): \(what)" }
}
