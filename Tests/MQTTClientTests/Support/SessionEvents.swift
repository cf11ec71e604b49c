import Foundation
import Logging
import MQTTClient
import Synchronization
import TestSupport

/// Collects an ``MQTTSession``'s events so tests can wait for one without owning the stream's iterator.
final class SessionEvents: Sendable {
    private final class Storage: Sendable {
        let events = Mutex<[MQTTSession.Event]>([])
    }

    private let storage: Storage
    private let task: Task<Void, Never>

    init(_ session: MQTTSession) {
        let storage = Storage()
        self.storage = storage
        task = Task {
            for await event in session.events { storage.events.withLock { $0.append(event) } }
        }
    }

    deinit { task.cancel() }

    var all: [MQTTSession.Event] { storage.events.withLock { $0 } }

    /// Waits (real time, bounded) until `count` recorded events satisfy `predicate`.
    func wait(
        count: Int = 1,
        timeout: Duration = .seconds(10),
        for predicate: (MQTTSession.Event) -> Bool
    ) async throws {
        let deadline = ContinuousClock.now + timeout
        while all.filter(predicate).count < count {
            guard ContinuousClock.now < deadline else {
                throw MosquittoBroker.Failure(description: "event not seen within \(timeout); events: \(all)")
            }
            try await Task.sleep(for: .milliseconds(5))
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
