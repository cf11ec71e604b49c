public import BridgeCore
import CarePlan
public import CareStore
public import Foundation

/// Evaluates the plan's alert rules over events and their outcomes. Pure: the same events, versions and `now`
/// always give the same trips.
///
/// - Numeric thresholds (`when`: a comparison or a range) of a task linked to a quantity type look at **every
///   reading** of that type for the task's patient while the version is in force: the readings an aggregation
///   (`first`, `mean`, …) left out of the event's value and the readings outside every window too (the
///   aggregate decides completion, not safety). One trip per reading, in the task's unit (or the threshold's
///   unit when it names one). A `sum` linkage is judged on its total (a step count is not a reading of steps).
///   Thresholds of other tasks look at every value of every event (an answer: one trip per event). A reading
///   out of the device's range (LO/HI, a comparator `<`/`>`) always trips the built-in rule `out-of-range`
///   (critical) instead: its value is only a bound. Quarantined samples complete no event and are not
///   readings, so rules never see them.
/// - Trends compare each value with the earlier values of the same task within `withinDays` calendar days in
///   the schedule's zone (so a DST day counts as one day): a rise (fall) by more than the change trips, once
///   per later value.
/// - Adherence counts, per calendar day of the schedule's zone, the events completed by the deadline (`by`, or
///   the end of the day); fewer than `fewerThan` trips once per day, and only once the deadline has passed at
///   `now`. Events that started before the version was applied (``StoredTask/appliedSince``: its creation, or
///   the store's first sight of the patient) are not judged: a plan whose schedule starts in the past raises
///   nothing for the past, and on the day it was applied `fewerThan` counts only the events left (at most as
///   many as there are). A day without events to judge is not judged.
///
/// The rules applied to an event are those of the task version in force for it (the rule's version).
public struct RuleEvaluator: Sendable {
    /// The built-in rule every out-of-range reading trips.
    public static let outOfRangeRuleID = "out-of-range"

    /// Every version of the tasks to evaluate, by version uuid.
    public var versions: [UUID: StoredTask]
    /// The bridge's zone (floating schedules).
    public var bridgeZone: TimeZone
    /// The versions whose thresholds judge every reading of their linked type, by that type, each with the end
    /// of its region (the next version's effective date; nil while it is the newest). Tombstones and versions a
    /// newer one shadows are left out: they govern no time.
    let readingVersions: [QuantityType: [(stored: StoredTask, until: Date?)]]

    /// - Parameter versions: every version of each task to evaluate (a task's whole chain, so that each
    ///   version's region is known).
    public init(versions: [StoredTask], bridgeZone: TimeZone) {
        self.versions = Dictionary(versions.map { ($0.version, $0) }, uniquingKeysWith: { first, _ in first })
        self.bridgeZone = bridgeZone
        var readingVersions: [QuantityType: [(stored: StoredTask, until: Date?)]] = [:]
        for chain in Dictionary(grouping: self.versions.values, by: \.id).values {
            // Newest first: each version ends at the earliest effective date among newer ones.
            var bound: Date?
            for stored in chain.sorted(by: { $0.versionNumber > $1.versionNumber }) {
                defer { bound = min(bound ?? stored.effectiveDate, stored.effectiveDate) }
                guard stored.deletedDate == nil, bound.map({ $0 > stored.effectiveDate }) ?? true,
                    let linkage = Self.judgesReadings(stored)
                else { continue }
                readingVersions[linkage.type, default: []].append((stored, bound))
            }
        }
        self.readingVersions = readingVersions
    }

    /// The linkage of a version whose thresholds judge every reading of the linked type (a linked assessment
    /// that is not a `sum` and has a comparison or range rule), else nil.
    static func judgesReadings(_ stored: StoredTask) -> SampleLinkage? {
        guard let linkage = stored.task.linkage, stored.task.kind == .assessment, linkage.aggregation != .sum,
            stored.task.alerts.contains(where: \.isThreshold)
        else { return nil }
        return linkage
    }

    /// The quantity types whose readings ``trips(events:readings:now:outOfRange:)`` needs.
    public var readingTypes: Set<QuantityType> { Set(readingVersions.keys) }

    /// How far before an interval the events must reach for its trends (the longest trend window plus a day).
    public var lookbackDays: Int {
        (versions.values.flatMap(\.task.alerts).compactMap { rule -> Int? in
            if case .trend(_, let days, _) = rule.condition { return days }
            return nil
        }.max() ?? 0) + 1
    }

    /// The observations of events: every value of every outcome of tasks with numeric values.
    public func observations(_ events: [CareEvent], outOfRange: Set<UUID> = []) -> [Observation] {
        var result: [Observation] = []
        for event in events {
            guard let stored = versions[event.key.taskVersion], stored.task.hasNumericValues,
                let outcome = event.outcome, !outcome.isNotDone
            else { continue }
            for value in outcome.values {
                result.append(
                    Observation(
                        taskID: event.taskID,
                        eventID: event.id,
                        taskVersion: event.key.taskVersion,
                        value: value.value,
                        unit: value.unit,
                        at: value.measuredAt,
                        sampleID: value.sampleID,
                        text: value.text,
                        isOutOfRange: value.comparator != nil
                            || (value.sampleID.map { outOfRange.contains($0) } ?? false)
                    )
                )
            }
        }
        return result.sorted { ($0.at, $0.eventID ?? "") < ($1.at, $1.eventID ?? "") }
    }

    /// The observations of readings: each live sample of a linked type (quarantined and unassigned ones aside)
    /// for every version that judges readings of its type, belongs to the sample's patient and is in force at
    /// its time; in the version's unit, naming the event it fed, else the event whose window it falls in, if any.
    public func observations(readings: [StoredSample], events: [CareEvent]) -> [Observation] {
        observations(readings: readings, index: ReadingEvents(self, events: events))
    }

    /// Which event each reading fed or fell in, by version: built once from the events, then used for every page
    /// of readings (``readingTrips(_:index:)``).
    public struct ReadingEvents: Sendable {
        var fed: [UUID: [UUID: String]] = [:]
        var windows: [UUID: [CareEvent]] = [:]

        public init(_ evaluator: RuleEvaluator, events: [CareEvent]) {
            for event in events
            where evaluator.versions[event.key.taskVersion].flatMap(RuleEvaluator.judgesReadings) != nil {
                windows[event.key.taskVersion, default: []].append(event)
                for value in event.outcome?.values ?? [] {
                    if let sampleID = value.sampleID { fed[event.key.taskVersion, default: [:]][sampleID] = event.id }
                }
            }
        }
    }

    func observations(readings: [StoredSample], index: ReadingEvents) -> [Observation] {
        guard !readingVersions.isEmpty else { return [] }
        let fed = index.fed
        let windows = index.windows
        var result: [Observation] = []
        for reading in readings where reading.inboxReason == nil && reading.deletedDate == nil {
            let sample = reading.sample
            guard !sample.isQuarantined, let candidates = readingVersions[sample.type] else { continue }
            for (stored, until) in candidates
            where stored.patientID == reading.patientID && sample.start >= stored.effectiveDate
                && until.map({ sample.start < $0 }) ?? true
            {
                guard let linkage = stored.task.linkage,
                    let value = sample.value.isFinite
                        ? sample.unit.convert(sample.value, to: linkage.unit) : sample.value
                else { continue }
                result.append(
                    Observation(
                        taskID: stored.id,
                        eventID: fed[stored.version]?[sample.id]
                            ?? windows[stored.version]?.first { $0.start <= sample.start && sample.start < $0.end }?.id,
                        taskVersion: stored.version,
                        value: value,
                        unit: linkage.unit,
                        at: sample.start,
                        sampleID: sample.id,
                        text: nil,
                        isOutOfRange: sample.comparator != nil
                    )
                )
            }
        }
        return result.sorted { ($0.at, $0.taskID) < ($1.at, $1.taskID) }
    }

    /// Every trip of the rules over `events` and `readings`, at `now`.
    /// - Parameters:
    ///   - readings: the samples of ``readingTypes`` in the interval to judge (every patient's the evaluated
    ///     tasks belong to); the thresholds of tasks that judge readings look only at these.
    ///   - outOfRange: samples flagged out of the device's measuring range.
    public func trips(
        events: [CareEvent],
        readings: [StoredSample],
        now: Date,
        outOfRange: Set<UUID> = []
    ) -> [AlertTrip] {
        var trips = readingTrips(readings, index: ReadingEvents(self, events: events))
        trips += eventTrips(events: events, now: now, outOfRange: outOfRange)
        return trips
    }

    /// The trips of readings alone (thresholds and out-of-range results of the tasks that judge every reading):
    /// each reading trips on its own, so a period's readings can be judged page by page.
    public func readingTrips(_ readings: [StoredSample], index: ReadingEvents) -> [AlertTrip] {
        var trips: [AlertTrip] = []
        for observation in observations(readings: readings, index: index) {
            guard let stored = versions[observation.taskVersion] else { continue }
            if observation.isOutOfRange {
                trips.append(outOfRangeTrip(observation, stored))
                continue
            }
            for rule in stored.task.alerts where rule.isThreshold {
                if let trip = thresholdTrip(rule, observation, stored) { trips.append(trip) }
            }
        }
        return trips
    }

    /// The trips of events' values (thresholds of tasks that do not judge readings, trends) and of adherence.
    public func eventTrips(events: [CareEvent], now: Date, outOfRange: Set<UUID> = []) -> [AlertTrip] {
        let observations = observations(events, outOfRange: outOfRange)
        var trips: [AlertTrip] = []
        for observation in observations {
            guard let stored = versions[observation.taskVersion] else { continue }
            // The readings of this version were judged above, each one; its event values are only aggregates.
            let judgedByReadings = Self.judgesReadings(stored) != nil
            if observation.isOutOfRange {
                // A LO/HI result always alerts; its value is only a bound, so thresholds and trends skip it.
                if !judgedByReadings { trips.append(outOfRangeTrip(observation, stored)) }
                continue
            }
            for rule in stored.task.alerts {
                switch rule.condition {
                case .compare, .range:
                    guard !judgedByReadings else { continue }
                    if let trip = thresholdTrip(rule, observation, stored) { trips.append(trip) }
                case .trend:
                    let earlier = observations.filter {
                        $0.taskID == observation.taskID && $0.at < observation.at && !$0.isOutOfRange
                    }
                    if let trip = trendTrip(rule, observation, earlier: earlier, stored) { trips.append(trip) }
                case .adherence:
                    break
                }
            }
        }
        trips += adherenceTrips(events: events, now: now)
        return trips
    }

    // MARK: - Numeric thresholds

    func convert(_ observation: Observation, to unit: HealthUnit?) -> Double? {
        guard let unit, unit != observation.unit else { return observation.value }
        return observation.unit.convert(observation.value, to: unit)
    }

    func thresholdTrip(_ rule: AlertRule, _ observation: Observation, _ stored: StoredTask) -> AlertTrip? {
        guard let value = convert(observation, to: rule.condition.unit) else { return nil }
        let tripped: Bool
        switch rule.condition {
        case .compare(let op, let threshold, _): tripped = op.holds(value, threshold)
        case .range(let lower, let upper, let inside, _): tripped = (lower...upper).contains(value) == inside
        default: tripped = false
        }
        guard tripped else { return nil }
        let unit = rule.condition.unit ?? observation.unit
        return trip(
            rule,
            stored,
            subject: observation.subject,
            value: value,
            unit: unit,
            at: observation.at,
            events: observation.events,
            samples: observation.sampleID.map { [$0] } ?? [],
            fields: ["value": observation.text ?? MessageTemplate.number(value)],
            defaultMessage: "\(stored.task.title): {value}{unitSuffix} ({threshold})"
        )
    }

    func outOfRangeTrip(_ observation: Observation, _ stored: StoredTask) -> AlertTrip {
        let shown =
            observation.value.isFinite
            ? MessageTemplate.number(observation.value) : (observation.value < 0 ? "LO" : "HI")
        let rule = AlertRule(
            id: Self.outOfRangeRuleID,
            severity: .critical,
            condition: .compare(.equal, observation.value.isFinite ? observation.value : 0, unit: nil)
        )
        return trip(
            rule,
            stored,
            subject: observation.subject,
            value: observation.value.isFinite ? observation.value : nil,
            unit: observation.unit,
            at: observation.at,
            events: observation.events,
            samples: observation.sampleID.map { [$0] } ?? [],
            fields: ["value": shown, "threshold": "out of the measuring range"],
            defaultMessage: "\(stored.task.title): reading out of the device's measuring range "
                + "(shown as {value}{unitSuffix})"
        )
    }

    // MARK: - Trends

    func trendTrip(
        _ rule: AlertRule,
        _ observation: Observation,
        earlier: [Observation],
        _ stored: StoredTask
    ) -> AlertTrip? {
        guard case .trend(let change, let days, let unit) = rule.condition,
            let value = convert(observation, to: unit)
        else { return nil }
        let zone = stored.task.schedule.timeZonePolicy.zone(bridge: bridgeZone)
        let windowStart = Self.calendar(zone).date(byAdding: .day, value: -days, to: observation.at)!
        let window = earlier.filter { $0.at >= windowStart }.compactMap { other in
            convert(other, to: unit).map { (other, $0) }
        }
        let reference = change > 0 ? window.min { $0.1 < $1.1 } : window.max { $0.1 < $1.1 }
        guard let (base, baseValue) = reference else { return nil }
        let delta = value - baseValue
        guard change > 0 ? delta > change : delta < change else { return nil }
        return trip(
            rule,
            stored,
            subject: observation.subject,
            value: delta,
            unit: unit ?? observation.unit,
            at: observation.at,
            events: base.events + observation.events,
            samples: [base.sampleID, observation.sampleID].compactMap { $0 },
            fields: [
                "value": MessageTemplate.number(value),
                "change": (delta > 0 ? "+" : "") + MessageTemplate.number(delta),
                "from": MessageTemplate.number(baseValue),
                "days": String(days),
            ],
            defaultMessage: "\(stored.task.title): {change}{unitSuffix} within {days} day\(days == 1 ? "" : "s") "
                + "({from} → {value}{unitSuffix})"
        )
    }

    // MARK: - Adherence

    func adherenceTrips(events: [CareEvent], now: Date) -> [AlertTrip] {
        var byVersionDay: [UUID: [String: [CareEvent]]] = [:]
        for event in events {
            guard let stored = versions[event.key.taskVersion], event.start >= stored.appliedSince,
                stored.task.alerts.contains(where: { if case .adherence = $0.condition { true } else { false } })
            else { continue }
            let day = Self.dayKey(event.start, zone: event.timeZone)
            byVersionDay[event.key.taskVersion, default: [:]][day, default: []].append(event)
        }
        var trips: [AlertTrip] = []
        for (uuid, days) in byVersionDay {
            let stored = versions[uuid]!
            let zone = stored.task.schedule.timeZonePolicy.zone(bridge: bridgeZone)
            for (day, dayEvents) in days.sorted(by: { $0.key < $1.key }) {
                for rule in stored.task.alerts {
                    guard case .adherence(let fewerThan, let by) = rule.condition else { continue }
                    let dayStart = Self.startOfDay(dayEvents[0].start, zone: zone)
                    let nextDay = Self.calendar(zone).date(byAdding: .day, value: 1, to: dayStart)!
                    let deadline =
                        by.map { Self.calendar(zone).date(byAdding: .minute, value: $0, to: dayStart)! } ?? nextDay
                    guard now >= deadline else { continue }
                    let done = dayEvents.filter { event in
                        guard event.isCompleted, let values = event.outcome?.values else { return false }
                        return by == nil || values.contains { $0.measuredAt <= deadline }
                    }
                    guard done.count < min(fewerThan, dayEvents.count) else { continue }
                    let byText = by.map { String(format: "by %02d:%02d", $0 / 60, $0 % 60) } ?? "that day"
                    trips.append(
                        trip(
                            rule,
                            stored,
                            subject: "day:\(day)",
                            value: Double(done.count),
                            unit: nil,
                            at: min(deadline, nextDay.addingTimeInterval(-1)),
                            events: dayEvents.map(\.id),
                            samples: [],
                            fields: [
                                "value": String(done.count), "completed": String(done.count),
                                "expected": String(dayEvents.count), "by": byText,
                            ],
                            defaultMessage: "\(stored.task.title): {completed} of {expected} done {by} on {day}"
                        )
                    )
                }
            }
        }
        return trips.sorted { ($0.occurredAt, $0.taskID, $0.ruleID) < ($1.occurredAt, $1.taskID, $1.ruleID) }
    }

    // MARK: - Building trips

    func trip(
        _ rule: AlertRule,
        _ stored: StoredTask,
        subject: String,
        value: Double?,
        unit: HealthUnit?,
        at: Date,
        events: [String],
        samples: [UUID],
        fields: [String: String],
        defaultMessage: String
    ) -> AlertTrip {
        let zone = stored.task.schedule.timeZonePolicy.zone(bridge: bridgeZone)
        let day = Self.dayKey(at, zone: zone)
        let unitText = unit.map { $0.rawValue == "1" ? "" : $0.displaySymbol } ?? ""
        var values: [String: String] = [
            "task": stored.taskName, "title": stored.task.title, "rule": rule.id, "day": day,
            "time": Timestamp.format(at, in: zone).dropFirst(11).prefix(5).description,
            "threshold": rule.condition.summary, "unit": unitText, "unitSuffix": unitText.isEmpty ? "" : " \(unitText)",
            "severity": rule.severity.rawValue,
        ]
        values.merge(fields) { _, new in new }
        return AlertTrip(
            taskID: stored.task.id,
            ruleID: rule.id,
            taskVersion: stored.version,
            taskVersionNumber: stored.versionNumber,
            subject: subject,
            severity: rule.severity,
            message: MessageTemplate.fill(rule.message ?? defaultMessage, values),
            value: value,
            unit: unit,
            occurredAt: at,
            day: day,
            events: events,
            samples: samples
        )
    }

    static func calendar(_ zone: TimeZone) -> Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        return calendar
    }

    static func startOfDay(_ date: Date, zone: TimeZone) -> Date { calendar(zone).startOfDay(for: date) }

    /// `YYYY-MM-DD` of `date` in `zone`.
    static func dayKey(_ date: Date, zone: TimeZone) -> String {
        String(Timestamp.format(date, in: zone).prefix(10))
    }
}
