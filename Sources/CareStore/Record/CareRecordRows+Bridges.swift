public import Foundation

extension CareRecordRows.Event {
    /// What makes two bridges' events the same event of the patient's plan: the task's name in the patient's plan
    /// (the plan file's task id, which a plan from the hub gives every bridge; not the bridge's store-wide key,
    /// `weigh` on one bridge and `weigh@ann` on another) and the event's window (its start and end instants, and
    /// whether it lasts all day). The task version and occurrence number are each bridge's own and do not count.
    public struct Identity: Sendable, Hashable {
        public var taskName: String
        public var start: Date
        public var end: Date
        public var isAllDay: Bool
    }

    /// The event's ``Identity``.
    public var identity: Identity { Identity(taskName: taskName, start: start, end: end, isAllDay: isAllDay) }

    /// One patient's events as several bridges computed them (each with its bridge in ``bridges``, the bridges in
    /// the order their copies should be listed), with each event of the plan once: events of different bridges
    /// with the same ``identity`` become one, holding every bridge's copy. The merged event is done when some
    /// bridge's outcome completes it, else not done when some bridge marked it so, else its state is judged once
    /// by time (``state(at:)``); its other fields (title, version, occurrence, zone, day) are its first bridge's.
    /// Events of one bridge never merge with each other (two copies on one bridge stay two events, the first of
    /// one bridge paired with the first of another), nor does an event without a bridge (a bridge's own store).
    /// Versions that differ between bridges (an edit made on one of them) give events at different times: those
    /// stay apart, each with its bridge. Order: the first appearance of each event.
    public static func merged(_ events: [Self]) -> [Self] {
        var merged: [Self] = []
        var byIdentity: [Identity: [Int]] = [:]
        for event in events {
            let bridges = Set(event.bridges.map(\.bridge))
            guard !bridges.isEmpty else {
                merged.append(event)
                continue
            }
            let identity = event.identity
            let same = byIdentity[identity, default: []].first { index in
                merged[index].bridges.allSatisfy { !bridges.contains($0.bridge) }
            }
            guard let same else {
                byIdentity[identity, default: []].append(merged.count)
                merged.append(event)
                continue
            }
            merged[same].bridges += event.bridges
            merged[same].isCompleted = merged[same].bridges.contains(where: \.isCompleted)
            merged[same].notDoneReason =
                merged[same].isCompleted ? nil : merged[same].bridges.lazy.compactMap(\.notDoneReason).first
        }
        return merged
    }
}
