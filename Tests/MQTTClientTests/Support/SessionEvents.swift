import Foundation
import Logging
import MQTTClient
import Synchronization
import TestSupport

/// Collects an ``MQTTSession``'s events so tests can wait for one without owning the stream's iterator.
final class SessionEvents: Sendable {
    private struct State {
        var events: [MQTTSession.Event] = []
        /// Waiters for the next event (or their deadline), by ticket.
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        /// Tickets whose deadline has passed.
        var expired: Set<Int> = []
        var nextTicket = 0
    }

    private final class Storage: Sendable {
        let state = Mutex(State())
    }

    private let storage: Storage
    private let task: Task<Void, Never>

    init(_ session: MQTTSession) {
        let storage = Storage()
        self.storage = storage
        task = Task {
            for await event in session.events {
                let waiters = storage.state.withLock { state in
                    state.events.append(event)
                    defer { state.waiters = [:] }
                    return Array(state.waiters.values)
                }
                for waiter in waiters { waiter.resume() }
            }
        }
    }

    deinit { task.cancel() }

    var all: [MQTTSession.Event] { storage.state.withLock { $0.events } }

    /// Waits until `count` recorded events satisfy `predicate`, looking again at each new event (and giving up
    /// after `timeout` of real time, a budget, not a pace: a passing run never waits for it, and a full run's
    /// start on 2 cores has held in-process work back for 150 s).
    func wait(
        count: Int = 1,
        timeout: Duration = .seconds(240),
        for predicate: (MQTTSession.Event) -> Bool
    ) async throws {
        let deadline = ContinuousClock.now + timeout
        let ticket = storage.state.withLock {
            $0.nextTicket += 1
            return $0.nextTicket
        }
        let timer = Task { [storage] in
            try? await ContinuousClock().sleep(until: deadline)
            storage.state.withLock {
                $0.expired.insert(ticket)
                return $0.waiters.removeValue(forKey: ticket)
            }?.resume()
        }
        defer {
            timer.cancel()
            storage.state.withLock { _ = $0.expired.remove(ticket) }
        }
        while true {
            let seen = all
            if seen.filter(predicate).count >= count { return }
            guard ContinuousClock.now < deadline else {
                throw MosquittoBroker.Failure(description: "event not seen within \(timeout); events: \(seen)")
            }
            await withCheckedContinuation { continuation in
                let ready = storage.state.withLock {
                    // An event came since `seen` was taken, or the deadline passed: look again at once.
                    guard $0.events.count == seen.count, !$0.expired.contains(ticket) else { return true }
                    $0.waiters[ticket] = continuation
                    return false
                }
                if ready { continuation.resume() }
            }
        }
    }
}

/// A logger for tests: silent unless `MQTT_TEST_LOG` is set, then everything to standard error.
func testLogger(_ label: String) -> Logger {
    if ProcessInfo.processInfo.environment["MQTT_TEST_LOG"] != nil {
        var logger = Logger(label: label, factory: { StreamLogHandler.standardError(label: $0) })
        logger.logLevel = .trace
        return logger
    }
    return Logger(label: label, factory: { _ in SwiftLogNoOpLogHandler() })
}
