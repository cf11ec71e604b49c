import CareStore
import Synchronization

/// What each open Today page compares after a store change: the stamp of its patient's day
/// (``CareStore/outcomeStamp(from:to:)``), computed once per change and (patient, day) however many pages show
/// it, so a write for one patient wakes only the pages showing that patient's day.
final class LiveStamps: Sendable {
    private struct Key: Hashable {
        var patient: String
        var day: String
    }

    /// The newest stamp per (patient, day), with the change-feed version it was computed at.
    private let stamps = Mutex<[Key: (version: Int, stamp: Int)]>([:])
    /// Enough for every page of a ward; past it the table starts again (a stamp is recomputed, never wrong).
    private let capacity = 4096

    /// The stamp of `patient`'s `day` at change `version`, computed if no page asked at that version yet.
    func stamp(
        patient: String,
        day: CalendarDay,
        version: Int,
        store: CareStore
    ) async throws(CareStoreError) -> Int {
        let key = Key(patient: patient, day: day.key)
        if let known = stamps.withLock({ $0[key] }), known.version == version { return known.stamp }
        let stamp = try await store.scoped(to: patient).outcomeStamp(from: day.start, to: day.end)
        stamps.withLock { table in
            if table.count >= capacity { table.removeAll(keepingCapacity: true) }
            if let known = table[key], known.version > version { return }
            table[key] = (version, stamp)
        }
        return stamp
    }
}
