import BridgeCore
import CarePlan
public import CareStore
public import Foundation

/// Computes ``InsightsReport``s from the store.
public enum InsightsBuilder {
    /// The insights of `[from, to)` with the period of the same length before it.
    /// - Parameters:
    ///   - store: read only (alerts are re-evaluated by the caller when wanted).
    ///   - patient: the patient's name for the page header (nil: the store's single implicit patient).
    public static func build(
        store: CareStore,
        from: Date,
        to: Date,
        patient: String? = nil
    ) async throws(CareStoreError) -> InsightsReport {
        let zone = store.bridgeZone
        let previousFrom = from.addingTimeInterval(-to.timeIntervalSince(from))
        let tasks = try await store.tasks()
        let events = try await store.events(matching: EventQuery(from: from, to: to)).filter { $0.start >= from }
        let previous = try await store.events(matching: EventQuery(from: previousFrom, to: from))
            .filter { $0.start >= previousFrom }
        let alerts = try await store.alerts(from: from, to: to)
        // The readings of linked tasks, page by page into per-day and per-period figures: what is held is a few
        // numbers per task and day, not the readings of both periods.
        let linked = tasks.map(\.task).compactMap { task in readingLinkage(task).map { (task, $0) } }
        var readings: [String: ReadingSummary] = [:]
        if !linked.isEmpty {
            var cursor = store.sampleCursor(
                matching: SampleQuery(types: Set(linked.map(\.1.type)), from: previousFrom, to: to),
                pageSize: 5_000
            )
            while let page = try await cursor.next() {
                for (task, linkage) in linked {
                    let taskZone = task.schedule.timeZonePolicy.zone(bridge: zone)
                    for stored in page {
                        guard let measured = measurement(stored, linkage: linkage, zone: taskZone) else { continue }
                        readings[task.id, default: ReadingSummary()].add(
                            measured,
                            current: measured.at >= from && measured.at < to,
                            previous: measured.at >= previousFrom && measured.at < from
                        )
                    }
                }
            }
        }
        return report(
            tasks: tasks,
            events: events,
            previous: previous,
            readings: readings,
            alerts: alerts,
            from: from,
            to: to,
            previousFrom: previousFrom,
            zone: zone,
            patient: patient
        )
    }

    /// The linkage of a task whose values are its readings (a linked assessment that is not a `sum`), or nil.
    static func readingLinkage(_ task: CareTask) -> SampleLinkage? {
        guard let linkage = task.linkage, task.kind == .assessment, linkage.aggregation != .sum else { return nil }
        return linkage
    }

    /// The pure part: the report from already fetched events, readings and alerts.
    ///
    /// The values of a linked assessment (except a `sum`) are every reading of its type in the period, in the
    /// task's unit, whether an event's aggregation kept it or not, and readings outside every window too: the
    /// range shown is the true range of what was measured. Other tasks' values are their events' values.
    /// - Parameter readings: the readings of the linked tasks in `[previousFrom, to)` (of the report's patient),
    ///   summed up per task.
    static func report(
        tasks: [StoredTask],
        events: [CareEvent],
        previous: [CareEvent],
        readings: [String: ReadingSummary] = [:],
        alerts: [Alert],
        from: Date,
        to: Date,
        previousFrom: Date,
        zone: TimeZone,
        patient: String?
    ) -> InsightsReport {
        let days = Self.days(from: from, to: to, zone: zone)
        var insights: [TaskInsight] = []
        var messages: [InsightMessage] = []
        for stored in tasks.sorted(by: { ($0.task.kind.rawValue, $0.id) > ($1.task.kind.rawValue, $1.id) }) {
            let task = stored.task
            let own = events.filter { $0.taskID == task.id }
            let before = previous.filter { $0.taskID == task.id }
            let numeric = task.hasNumericValues
            let unit = task.linkage?.unit.rawValue ?? task.answer?.unit.rawValue
            var perDay: [TaskInsight.Day] = days.map { TaskInsight.Day(day: $0, completed: 0, total: 0, value: nil) }
            var sums: [String: (Double, Int)] = [:]
            for event in own {
                let day = String(Timestamp.format(event.start, in: event.timeZone).prefix(10))
                guard let index = perDay.firstIndex(where: { $0.day == day }) else { continue }
                perDay[index].total += 1
                if event.isCompleted { perDay[index].completed += 1 }
                // LO/HI values are bounds, not measurements: they are counted as alerts, not averaged.
                let measured: [OutcomeValue] = (event.outcome?.values ?? []).filter { $0.comparator == nil }
                if numeric, !measured.isEmpty {
                    let sum = sums[day] ?? (0, 0)
                    sums[day] = (sum.0 + measured.reduce(0) { $0 + $1.value }, sum.1 + measured.count)
                }
            }
            let measured = readingLinkage(task).map { _ in readings[task.id] ?? ReadingSummary() }
            if let measured {
                sums = [:]
                for (day, figures) in measured.days {
                    sums[day] = (figures.sum, figures.count)
                    if let index = perDay.firstIndex(where: { $0.day == day }) {
                        perDay[index].low = figures.low
                        perDay[index].high = figures.high
                    }
                }
            }
            for index in perDay.indices {
                if let (sum, count) = sums[perDay[index].day] { perDay[index].value = sum / Double(count) }
            }
            let openAlerts = alerts.filter { $0.trip.taskID == task.id && $0.isOpen }.count
            let insight = TaskInsight(
                id: task.id,
                name: stored.taskName,
                title: task.title,
                kind: task.kind,
                unit: numeric ? unit : nil,
                answer: task.answer,
                completion: completion(own),
                previousCompletion: completion(before),
                values: measured.map { $0.current.values } ?? (numeric ? values(own) : nil),
                previousValues: measured.map { $0.previous.values } ?? (numeric ? values(before) : nil),
                days: perDay,
                openAlerts: openAlerts
            )
            insights.append(insight)
            messages += tips(insight)
        }
        for alert in alerts where alert.withdrawnAt == nil {
            messages.append(
                InsightMessage(
                    kind: .alert,
                    severity: alert.trip.severity,
                    taskID: alert.trip.taskID,
                    taskName: alert.taskName,
                    text: alert.trip.message,
                    day: alert.trip.day,
                    alertID: alert.id,
                    state: alert.state
                )
            )
        }
        // Most severe first; then alerts before tips, by day, task and text (a stable, reproducible order).
        messages.sort { a, b in
            if a.severity != b.severity { return a.severity > b.severity }
            if a.kind != b.kind { return a.kind == .alert }
            return (a.day ?? "", a.taskID, a.text) < (b.day ?? "", b.taskID, b.text)
        }
        return InsightsReport(
            patient: patient,
            from: from,
            to: to,
            previousFrom: previousFrom,
            days: days,
            tasks: insights,
            messages: messages,
            alerts: alerts,
            zone: zone
        )
    }

    static func completion(_ events: [CareEvent]) -> TaskInsight.Completion {
        TaskInsight.Completion(
            completed: events.filter(\.isCompleted).count,
            total: events.count,
            notDone: events.filter { $0.outcome?.isNotDone == true }.count
        )
    }

    static func values(_ events: [CareEvent]) -> TaskInsight.Values? {
        let all: [OutcomeValue] = events.flatMap { event -> [OutcomeValue] in event.outcome?.values ?? [] }
        let values = all.filter { $0.comparator == nil }.sorted { $0.measuredAt < $1.measuredAt }
        return summary(values.map { ($0.value, $0.text, $0.measuredAt) })
    }

    /// A reading of `linkage`'s type in its unit with its calendar day in `zone` (the task's), if it is live and
    /// usable; LO/HI readings (bounds, not measurements) are left out, as they are from event values.
    static func measurement(_ stored: StoredSample, linkage: SampleLinkage, zone: TimeZone) -> ReadingSummary.Reading? {
        let sample = stored.sample
        guard sample.type == linkage.type, sample.comparator == nil, !sample.isQuarantined,
            stored.inboxReason == nil, stored.deletedDate == nil,
            let value = sample.unit.convert(sample.value, to: linkage.unit)
        else { return nil }
        let day = String(Timestamp.format(sample.start, in: zone).prefix(10))
        return ReadingSummary.Reading(value: value, at: sample.start, day: day)
    }

    /// Count, mean, range and latest of values in time order; nil without values.
    static func summary(_ values: [(value: Double, text: String?, at: Date)]) -> TaskInsight.Values? {
        guard let last = values.last else { return nil }
        let numbers = values.map(\.value)
        return TaskInsight.Values(
            count: numbers.count,
            mean: numbers.reduce(0, +) / Double(numbers.count),
            min: numbers.min()!,
            max: numbers.max()!,
            latest: last.value,
            latestText: last.text,
            latestAt: last.at
        )
    }

    /// Tips: adherence that moved by 20 points or more against the previous period; assessments left unanswered.
    static func tips(_ insight: TaskInsight) -> [InsightMessage] {
        var tips: [InsightMessage] = []
        if insight.kind == .intervention, let now = insight.completion.rate,
            let before = insight.previousCompletion.rate, abs(now - before) >= 0.2
        {
            let percent = { (rate: Double) in "\(Int((rate * 100).rounded()))%" }
            tips.append(
                InsightMessage(
                    tip: now < before ? .warning : .info,
                    about: insight,
                    text: "\(insight.title): \(percent(now)) done, \(now < before ? "down" : "up") from "
                        + "\(percent(before)) the period before"
                )
            )
        }
        if insight.kind == .assessment, insight.completion.total > 0, insight.completion.completed == 0 {
            tips.append(
                InsightMessage(
                    tip: .info,
                    about: insight,
                    text: "\(insight.title): nothing recorded in this period (\(insight.completion.total) expected)"
                )
            )
        }
        return tips
    }

    /// The calendar days `[from, to)` touches, in `zone`.
    static func days(from: Date, to: Date, zone: TimeZone) -> [String] {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        var days: [String] = []
        var day = calendar.startOfDay(for: from)
        while day < to {
            days.append(String(Timestamp.format(day, in: zone).prefix(10)))
            day = calendar.date(byAdding: .day, value: 1, to: day)!
        }
        return days
    }
}

extension InsightMessage {
    /// A tip about `insight`'s task (no day, no alert).
    init(tip severity: AlertSeverity, about insight: TaskInsight, text: String) {
        self.init(
            kind: .tip,
            severity: severity,
            taskID: insight.id,
            taskName: insight.name,
            text: text,
            day: nil,
            alertID: nil,
            state: nil
        )
    }
}
