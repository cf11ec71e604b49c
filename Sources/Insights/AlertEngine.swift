public import BridgeCore
import CarePlan
public import CareStore
public import Foundation

/// Evaluates the plan's rules against the store and records the resulting alerts (raise once, withdraw what a
/// late reading or a correction no longer supports, queue notifications).
public enum AlertEngine {
    /// Readings judged at a time.
    static let pageSize = 5_000

    /// Re-evaluates every rule for the whole calendar days (in the bridge's zone) that `[from, to)` touches.
    /// - Parameters:
    ///   - store: the store to read and write.
    ///   - from: the first instant whose facts may have changed (a late reading's time, the corrected event).
    ///   - to: the end; default `now`.
    ///   - now: the evaluation time (adherence deadlines pass at this time).
    ///   - types: the quantity types whose samples changed, when only samples did (an ingest): tasks linked to
    ///     other types and without rules cannot have a new alert. Nil: every linked task.
    /// - Returns: what changed.
    ///
    /// The store is read a fixed number of times however many tasks it holds: the task versions once (only the
    /// scoped patient's, only tasks with rules or a linkage), the events of those tasks, the readings of the types
    /// thresholds judge (page by page), and one write for the alerts.
    @discardableResult
    public static func evaluate(
        store: CareStore,
        from: Date,
        to: Date? = nil,
        now: Date = Date(),
        types: Set<QuantityType>? = nil
    ) async throws(CareStoreError) -> AlertReconciliation {
        let zone = store.bridgeZone
        // Whole chains (each version judges its own time) of the tasks that are not deleted.
        let all = try await store.ruleTaskVersions(linkedTo: types)
        let deleted = Set(all.filter { $0.deletedDate != nil }.map(\.id))
        let versions = all.filter { !deleted.contains($0.id) }
        let taskIDs = Set(versions.map(\.id))
        guard !taskIDs.isEmpty else { return AlertReconciliation() }
        let evaluator = RuleEvaluator(versions: versions, bridgeZone: zone)
        let calendar = RuleEvaluator.calendar(zone)
        let start = calendar.startOfDay(for: from)
        let endInstant = max(to ?? now, from)
        let end = calendar.date(byAdding: .day, value: 1, to: calendar.startOfDay(for: endInstant))!
        // Trends reach back; a later reading's trend depends on earlier ones, so a late reading re-evaluates the
        // window after it too (handled by callers passing `to` = now).
        let lookback = calendar.date(byAdding: .day, value: -evaluator.lookbackDays, to: start)!
        let events = try await store.events(matching: EventQuery(from: lookback, to: end, taskIDs: taskIDs))
        // Thresholds of linked tasks judge every reading of the type, not only what completed an event: read page
        // by page (each reading trips on its own), so what is held is the trips, not the period's readings.
        var trips: [AlertTrip] = []
        if !evaluator.readingTypes.isEmpty {
            let index = RuleEvaluator.ReadingEvents(evaluator, events: events)
            var cursor = store.sampleCursor(
                matching: SampleQuery(types: evaluator.readingTypes, from: start, to: end),
                pageSize: pageSize
            )
            while let page = try await cursor.next() { trips += evaluator.readingTrips(page, index: index) }
        }
        trips += evaluator.eventTrips(events: events, now: now)
        trips = trips.filter { $0.occurredAt >= start && $0.occurredAt < end }
        return try await store.reconcileAlerts(trips, taskIDs: taskIDs, from: start, to: end, now: now)
    }
}
