import CarePlan
public import CareStore
public import Foundation

/// Evaluates the plan's rules against the store and records the resulting alerts (raise once, withdraw what a
/// late reading or a correction no longer supports, queue notifications).
public enum AlertEngine {
    /// Re-evaluates every rule for the whole calendar days (in the bridge's zone) that `[from, to)` touches.
    /// - Parameters:
    ///   - store: the store to read and write.
    ///   - from: the first instant whose facts may have changed (a late reading's time, the corrected event).
    ///   - to: the end; default `now`.
    ///   - now: the evaluation time (adherence deadlines pass at this time).
    /// - Returns: what changed.
    @discardableResult
    public static func evaluate(
        store: CareStore,
        from: Date,
        to: Date? = nil,
        now: Date = Date()
    ) async throws(CareStoreError) -> AlertReconciliation {
        let zone = store.bridgeZone
        var versions: [StoredTask] = []
        for task in try await store.tasks() {
            let chain = try await store.taskVersions(id: task.id)
            if chain.contains(where: { !$0.task.alerts.isEmpty || $0.task.linkage != nil }) { versions += chain }
        }
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
        let trips = evaluator.trips(events: events, now: now).filter { $0.occurredAt >= start && $0.occurredAt < end }
        return try await store.reconcileAlerts(trips, taskIDs: taskIDs, from: start, to: end, now: now)
    }
}
