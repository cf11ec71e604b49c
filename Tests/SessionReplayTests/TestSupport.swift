import Foundation
import Logging
import Synchronization
import TestSupport

/// A log handler that keeps messages in memory, so tests can assert on warnings.
struct CapturingLogHandler: LogHandler {
    final class Store: Sendable {
        let entries = Mutex<[(Logger.Level, String, Logger.Metadata)]>([])
        var messages: [String] { entries.withLock { $0.map(\.1) } }
        var all: [(Logger.Level, String, Logger.Metadata)] { entries.withLock { $0 } }
    }

    let store: Store
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        store.entries.withLock { $0.append((event.level, event.message.description, event.metadata ?? [:])) }
    }

    static func logger() -> (Logger, Store) {
        let store = Store()
        return (Logger(label: "test") { _ in CapturingLogHandler(store: store) }, store)
    }
}

/// Writes `contents` to a file named `name` in a fresh directory inside `scratch` (each call its own file, even
/// under the same name) and returns its path; it is removed with `scratch`.
func temporaryFile(_ name: String, contents: String, in scratch: ScratchDirectory) throws -> String {
    let dir = scratch.url(UUID().uuidString)
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    let url = dir.appendingPathComponent(name)
    try contents.write(to: url, atomically: true, encoding: .utf8)
    return url.path
}

/// A clock whose sleeps return at once and advance its time: replay pacing without waiting.
final class TestClock: Clock, Sendable {
    struct Instant: InstantProtocol {
        var offset: Duration
        func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        func duration(to other: Instant) -> Duration { other.offset - offset }
        static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private let current = Mutex(Instant(offset: .zero))
    let sleeps = Mutex<[Duration]>([])

    var now: Instant { current.withLock { $0 } }
    var minimumResolution: Duration { .nanoseconds(1) }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        current.withLock { now in
            sleeps.withLock { $0.append(now.duration(to: deadline)) }
            if deadline > now { now = deadline }
        }
    }
}
