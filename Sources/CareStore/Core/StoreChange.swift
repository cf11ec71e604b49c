public import BridgeCore
public import Foundation
import Synchronization

/// Something that changed in the store: the analogue of CareKit's store delegate callbacks.
public enum StoreChange: Sendable, Hashable {
    /// Tasks were added, versioned or deleted.
    case taskListChanged(taskIDs: [String])
    /// An event's outcome was created, re-derived or removed.
    case eventUpdated(EventKey)
    /// A new sample was stored.
    case sampleAdded(id: UUID, type: QuantityType, start: Date)
    /// A sample was deleted (tombstoned).
    case sampleDeleted(id: UUID)
}

/// Names one event: a task version and an occurrence index in that version's schedule.
public struct EventKey: Sendable, Hashable, CustomStringConvertible {
    /// The task's developer id.
    public var taskID: String
    /// The task version.
    public var taskVersion: UUID
    public var occurrence: Int

    public init(taskID: String, taskVersion: UUID, occurrence: Int) {
        self.taskID = taskID
        self.taskVersion = taskVersion
        self.occurrence = occurrence
    }

    /// The stable event id: `<taskVersionUUID>#<occurrence>`.
    public var description: String { "\(taskVersion.uuidString.lowercased())#\(occurrence)" }
}

/// Fans committed changes out to every live subscriber. Changes made by other processes on the same file are
/// not seen (SQLite has no cross-process notification); a daemon that must follow them re-queries.
final class ChangeBroadcaster: Sendable {
    private let subscribers = Mutex<[UUID: AsyncStream<[StoreChange]>.Continuation]>([:])

    var hasSubscribers: Bool { subscribers.withLock { !$0.isEmpty } }

    func subscribe() -> AsyncStream<[StoreChange]> {
        let (stream, continuation) = AsyncStream<[StoreChange]>.makeStream(bufferingPolicy: .unbounded)
        let id = UUID()
        continuation.onTermination = { [weak self] _ in
            _ = self?.subscribers.withLock { $0.removeValue(forKey: id) }
        }
        subscribers.withLock { $0[id] = continuation }
        return stream
    }

    func publish(_ changes: [StoreChange]) {
        guard !changes.isEmpty else { return }
        let continuations = subscribers.withLock { Array($0.values) }
        for continuation in continuations { continuation.yield(changes) }
    }
}
