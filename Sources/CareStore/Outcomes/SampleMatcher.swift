import BridgeCore
import CarePlan
import Foundation
import GRDB

/// Auto-completion: which linked events a batch of samples falls into, and the outcomes those events get.
///
/// Samples are collected first (``add(_:id:recordedAt:forceFullDerivation:)``); ``apply(_:now:)`` then writes
/// each touched event once. Outcomes are a pure function of the live samples in the event window that lie in
/// the task version's region, so deriving again always gives the same result. When an outcome already exists,
/// the common cases are applied incrementally (append to `each`, compare for `first`/`last`/`min`/`max`);
/// `mean`, `sum`, deletions and out-of-order arrivals re-read the window.
struct SampleMatcher {
    /// A new sample's contribution, value already in the linkage unit.
    struct Contribution {
        var sampleID: SampleKey
        var value: Double
        var measuredAt: Date
        var recordedAt: Date
        /// `<`/`>` for a value from a LO/HI sample.
        var comparator: ValueComparator? = nil
        /// How many samples it stands for: 1, or an aggregate's count (its `value` is then their sum, for
        /// `mean`/`sum` only; see ``aggregateContributions(_:touch:linkage:)``).
        var weight = 1

        /// The value for min/max: a LO sorts below every number, a HI above every number.
        var orderingValue: Double {
            switch comparator {
            case .lessThan: -.infinity
            case .greaterThan: .infinity
            case nil: value
            }
        }

        /// Order of `each` values and the tie-break everywhere: measurement time, then entry time (a reading
        /// entered later to correct one measured at the same instant comes after it), then sample id.
        static func chronological(_ a: Contribution, _ b: Contribution) -> Bool {
            (a.measuredAt, a.recordedAt, a.sampleID) < (b.measuredAt, b.recordedAt, b.sampleID)
        }
    }

    /// A sample added to the batch, once for every event it falls into: value in the sample's own unit (each
    /// linkage converts it to its unit when the event is applied).
    struct PooledSample {
        var sampleID: SampleKey
        var value: Double
        var unit: HealthUnit
        var measuredAt: Date
        var recordedAt: Date
        var comparator: ValueComparator?
    }

    /// Which pooled samples fall into a touched event, as runs of consecutive positions in the pool of the
    /// event's type: samples arrive in time order, so an event collects one run however many samples (and
    /// however many tasks share them). Stored this way a batch costs memory for its samples once plus a few
    /// words per touched event, not a contribution per sample and task (about 70 KB per heart-rate-linked task
    /// for an hour of heart rate before).
    struct Runs {
        private(set) var ranges: [Range<Int32>] = []

        var isEmpty: Bool { ranges.isEmpty }

        mutating func append(_ position: Int32) {
            if let last = ranges.last, last.upperBound == position {
                ranges[ranges.count - 1] = last.lowerBound..<(position + 1)
            } else {
                ranges.append(position..<(position + 1))
            }
        }
    }

    struct Touch {
        var version: TaskVersion
        var event: ScheduledEvent
        /// The type whose pool ``runs`` index.
        var type: QuantityType? = nil
        var runs = Runs()
        var full = false
    }

    struct TouchKey: Hashable {
        var version: UUID
        var occurrence: Int
    }

    let zone: TimeZone
    let versions: TaskVersions
    /// `versions.linkedByType`, boxed (see ``LinkedVersion``).
    private let linked: [QuantityType: [LinkedVersion]]
    /// The candidates of the last type looked up: runs of samples share a type.
    private var lastLinked: (QuantityType, [LinkedVersion])?
    private(set) var touched: [TouchKey: Touch] = [:]
    private var eventCache = EventCache()
    /// The batch's samples that fell into some event, one pool per quantity type (a touch indexes one pool).
    private var pools: [QuantityType: [PooledSample]] = [:]

    init(db: Database, bridgeZone: TimeZone) throws {
        self.init(versions: try TaskVersions.load(db), bridgeZone: bridgeZone)
    }

    init(versions: TaskVersions, bridgeZone: TimeZone) {
        zone = bridgeZone
        self.versions = versions
        var count = 0
        linked = versions.linkedByType.mapValues { list in
            list.compactMap { version in
                guard let linkage = version.task.linkage else { return nil }
                defer { count += 1 }
                return LinkedVersion(version, linkage: linkage, index: count)
            }
        }
        eventCache = EventCache(versions: count)
    }

    private mutating func candidates(_ type: QuantityType) -> [LinkedVersion]? {
        if let lastLinked, lastLinked.0 == type { return lastLinked.1 }
        let found = linked[type]
        lastLinked = (type, found ?? [])
        return found
    }

    /// Whether a sample of `type` taken at `instant` falls into some linked event.
    mutating func matches(type: QuantityType, at instant: Date, patient: String? = nil) -> Bool {
        for version in candidates(type) ?? [] where version.patient == patient && version.governs(instant) {
            if eventCache.events(of: version, around: instant, zone: zone).contains(where: { $0.contains(instant) }) {
                return true
            }
        }
        return false
    }

    /// Notes the events a sample falls into.
    /// - Returns: whether it fell into any.
    /// - Parameter patient: the sample's patient: only the tasks of that patient's plans are candidates.
    mutating func add(
        _ sample: QuantitySample,
        id: UUID,
        recordedAt: Date,
        patient: String?,
        forceFullDerivation: Bool = false
    ) -> Bool {
        // A quarantined sample completes nothing (deleting one changes nothing either).
        guard !sample.isQuarantined || forceFullDerivation else { return false }
        guard let candidates = candidates(sample.type), !candidates.isEmpty else { return false }
        let instant = sample.start
        var matched = false
        // The sample's place in its type's pool, taken when it first falls into an event.
        var position: Int32?
        for linked in candidates where linked.patient == patient && linked.governs(instant) {
            let linkage = linked.linkage
            guard sample.unit.convert(sample.value, to: linkage.unit) != nil else { continue }
            for event in eventCache.events(of: linked, around: instant, zone: zone) where event.contains(instant) {
                matched = true
                let key = TouchKey(version: linked.uuid, occurrence: event.occurrence)
                if forceFullDerivation {
                    touched[key, default: Touch(version: linked.version, event: event)].full = true
                    continue
                }
                if position == nil {
                    position = Int32(pools[sample.type, default: []].count)
                    pools[sample.type, default: []].append(
                        PooledSample(
                            sampleID: SampleKey(id),
                            value: sample.value,
                            unit: sample.unit,
                            measuredAt: instant,
                            recordedAt: recordedAt,
                            comparator: sample.comparator
                        )
                    )
                }
                // In place: copying the touch out and back would copy its runs every time.
                touched[key, default: Touch(version: linked.version, event: event, type: sample.type)].runs.append(
                    position!
                )
            }
        }
        return matched
    }

    /// The batch's samples in a touched event, as contributions in the linkage's unit (unordered).
    private func contributions(_ touch: Touch, linkage: SampleLinkage) -> [Contribution] {
        guard let type = touch.type, let pool = pools[type] else { return [] }
        var result: [Contribution] = []
        for range in touch.runs.ranges {
            for position in range {
                let pooled = pool[Int(position)]
                guard let value = pooled.unit.convert(pooled.value, to: linkage.unit) else { continue }
                result.append(
                    Contribution(
                        sampleID: pooled.sampleID,
                        value: value,
                        measuredAt: pooled.measuredAt,
                        recordedAt: pooled.recordedAt,
                        comparator: pooled.comparator
                    )
                )
            }
        }
        return result
    }

    /// Marks an event for full derivation from the stored samples (used when a version is added).
    mutating func touch(version: TaskVersion, event: ScheduledEvent) {
        let key = TouchKey(version: version.uuid, occurrence: event.occurrence)
        var touch = touched[key] ?? Touch(version: version, event: event)
        touch.full = true
        touched[key] = touch
    }

    /// Writes the outcome of every touched event.
    /// - Returns: the events whose outcome changed, in a deterministic order.
    mutating func apply(_ db: Database, now: Date) throws -> [EventKey] {
        let keys = touched.keys.map { (SampleKey($0.version), $0) }.sorted {
            ($0.0, $0.1.occurrence) < ($1.0, $1.1.occurrence)
        }
        .map(\.1)
        var changed: [EventKey] = []
        let writer = try OutcomeWriter(db: db)
        for key in keys {
            guard let touch = touched[key], let linkage = touch.version.task.linkage else { continue }
            let eventKey = EventKey(
                taskID: touch.version.record.id,
                taskVersion: key.version,
                occurrence: key.occurrence
            )
            if !touch.full,
                try applyIncrementally(
                    touch,
                    new: contributions(touch, linkage: linkage),
                    linkage: linkage,
                    writer: writer,
                    now: now
                )
            {
                changed.append(eventKey)
                continue
            }
            let contributions = try storedContributions(db, touch: touch, linkage: linkage)
            try writer.replace(
                touch,
                values: Self.aggregate(contributions, linkage.aggregation),
                running: Self.running(contributions, linkage.aggregation),
                now: now
            )
            changed.append(eventKey)
        }
        touched = [:]
        pools = [:]
        return changed
    }

    /// The common cases without re-reading the window.
    /// - Returns: false when a full derivation is needed instead.
    private func applyIncrementally(
        _ touch: Touch,
        new: [Contribution],
        linkage: SampleLinkage,
        writer: OutcomeWriter,
        now: Date
    ) throws -> Bool {
        let new = new.sorted(by: Contribution.chronological)
        guard !new.isEmpty else { return false }
        let aggregation = linkage.aggregation
        guard let existing = try writer.outcomeID(touch) else {
            // No outcome yet means no live sample matched this event before: the new ones are all there is.
            try writer.replace(
                touch,
                values: Self.aggregate(new, aggregation),
                running: Self.running(new, aggregation),
                now: now
            )
            return true
        }
        switch aggregation {
        case .each:
            guard let last = try writer.lastValue(outcomeID: existing) else { return false }
            let lastKey = Contribution(
                sampleID: last.sampleID,
                value: last.value,
                measuredAt: last.measuredAt,
                recordedAt: last.recordedAt,
                comparator: last.comparator
            )
            // Out of order: re-read the window so values stay in measurement order.
            guard Contribution.chronological(lastKey, new[0]) else { return false }
            try writer.append(touch, outcomeID: existing, from: last.position + 1, values: new, now: now)
            return true
        case .first, .last, .min, .max:
            guard let current = try writer.lastValue(outcomeID: existing), current.position == 0 else {
                return false
            }
            let currentContribution = Contribution(
                sampleID: current.sampleID,
                value: current.value,
                measuredAt: current.measuredAt,
                recordedAt: current.recordedAt,
                comparator: current.comparator
            )
            let best = Self.aggregate([currentContribution] + new, aggregation)
            if let winner = best.first, winner.sampleID != currentContribution.sampleID {
                try writer.replace(touch, values: best, now: now)
            }
            return true
        case .mean, .sum:
            // Samples after every stored one continue the chronological sum exactly as a full derivation would.
            // LO/HI values make the aggregate a bound: derived in full.
            guard new.allSatisfy({ $0.comparator == nil }),
                try writer.lastValue(outcomeID: existing)?.comparator == nil,
                let running = try writer.running(outcomeID: existing), running.measuredAt < new[0].measuredAt
            else {
                return false
            }
            var sum = running.sum
            for contribution in new { sum += contribution.value }
            let count = running.count + new.count
            let value = Contribution(
                sampleID: .none,
                value: aggregation == .sum ? sum : sum / Double(count),
                measuredAt: new[new.count - 1].measuredAt,
                recordedAt: max(running.recordedAt, new.map(\.recordedAt).max()!)
            )
            try writer.replace(touch, values: [value], running: (sum, count), now: now)
            return true
        }
    }

    /// The sum and count a `mean`/`sum` outcome keeps for incremental updates (nil for other aggregations).
    static func running(_ contributions: [Contribution], _ aggregation: Aggregation) -> (sum: Double, count: Int)? {
        guard aggregation == .mean || aggregation == .sum, !contributions.isEmpty else { return nil }
        return (contributions.reduce(0) { $0 + $1.value }, contributions.reduce(0) { $0 + $1.weight })
    }

    /// The live samples in the event window and the version's region, as contributions, chronological.
    private func storedContributions(_ db: Database, touch: Touch, linkage: SampleLinkage) throws -> [Contribution] {
        let statement = try db.cachedStatement(
            sql: """
                SELECT r.start, r.idTail, r.detail, r.transmittedValue, s.unit, s.transmittedUnit, s.comparator,
                (SELECT recordedAt FROM sampleBatch WHERE firstOrigin <= r.origin ORDER BY firstOrigin DESC LIMIT 1)
                FROM sampleRow AS r JOIN sampleSeries AS s ON s.id = r.series
                WHERE r.type = (SELECT code FROM quantityType WHERE name = ?) AND r.start >= ? AND r.start <= ?
                AND r.state IS NULL AND \(SampleTable.patientCondition)
                """
        )
        statement.setUncheckedArguments([
            linkage.type.rawValue, SampleTable.milliseconds(touch.event.start) - 1,
            SampleTable.milliseconds(touch.event.end.addingTimeInterval(1)) + 1, touch.version.patient,
        ])
        var result: [Contribution] = []
        let rows = try Row.fetchCursor(statement)
        while let row = try rows.next() {
            let start: Int64 = row[0]
            let instant = SampleTable.date(start)
            guard touch.event.contains(instant), touch.version.governs(instant) else { continue }
            let unit = HealthUnit(rawValue: row[4])
            let detail = try SampleDetail(json: row[2])
            guard
                let stored = detail.value ?? HealthUnit(rawValue: row[5]).convert(row[3], to: unit),
                let value = unit.convert(stored, to: linkage.unit)
            else { continue }
            result.append(
                Contribution(
                    sampleID: SampleKey(SampleTable.id(keyTime: detail.keyTime ?? start, tail: row[1])),
                    value: value,
                    measuredAt: instant,
                    recordedAt: SampleTable.date(row[7] ?? 0),
                    comparator: (row[6] as String?).flatMap(ValueComparator.init(rawValue:))
                )
            )
        }
        // Vacuumed samples answer from their aggregates (``CareStore/applyRetention(now:batchSeconds:progress:)``).
        result += try Self.aggregateContributions(db, touch: touch, linkage: linkage)
        return result.sorted(by: Contribution.chronological)
    }

    /// Outcome values from chronological contributions. `mean` and `sum` give one value without a sample id,
    /// measured at the latest contribution.
    static func aggregate(_ contributions: [Contribution], _ aggregation: Aggregation) -> [Contribution] {
        guard let firstSample = contributions.first, let lastSample = contributions.last else { return [] }
        switch aggregation {
        case .each:
            return contributions
        case .first:
            return [contributions.min(by: Contribution.chronological)!]
        case .last:
            return [contributions.max(by: Contribution.chronological)!]
        case .min:
            return [
                contributions.min {
                    ($0.orderingValue, $0.measuredAt, $0.recordedAt, $0.sampleID)
                        < ($1.orderingValue, $1.measuredAt, $1.recordedAt, $1.sampleID)
                }!
            ]
        case .max:
            return [
                contributions.min {
                    ($0.orderingValue, $1.measuredAt, $1.recordedAt, $1.sampleID)
                        > ($1.orderingValue, $0.measuredAt, $0.recordedAt, $0.sampleID)
                }!
            ]
        case .mean, .sum:
            // With LO (HI) values the aggregate of their limits is an upper (lower) bound: it keeps the comparator.
            // LO and HI together bound nothing: the values are kept one by one, each with its comparator.
            let comparators = Set(contributions.compactMap(\.comparator))
            if comparators.count > 1 { return contributions }
            let total = contributions.reduce(0) { $0 + $1.value }
            let value = aggregation == .sum ? total : total / Double(contributions.reduce(0) { $0 + $1.weight })
            let measured = max(firstSample.measuredAt, lastSample.measuredAt)
            let recorded = contributions.map(\.recordedAt).max()!
            return [
                Contribution(
                    sampleID: .none,
                    value: value,
                    measuredAt: measured,
                    recordedAt: recorded,
                    comparator: comparators.first
                )
            ]
        }
    }
}

/// A linked task version as the matcher uses it, boxed: the matcher looks at every candidate version once per
/// sample, and copying the `TaskVersion` struct (record, task, schedule) retained each of its fields every time.
final class LinkedVersion: Sendable {
    let version: TaskVersion
    let linkage: SampleLinkage
    let uuid: UUID
    let effective: Date
    let until: Date?
    /// The patient whose plan the version belongs to.
    let patient: String?
    /// Position among the matcher's linked versions (its slot in ``EventCache``).
    let index: Int

    init(_ version: TaskVersion, linkage: SampleLinkage, index: Int) {
        self.version = version
        self.linkage = linkage
        self.uuid = version.uuid
        self.effective = version.effective
        self.until = version.until
        self.patient = version.patient
        self.index = index
    }

    /// ``TaskVersion/governs(_:)``.
    func governs(_ instant: Date) -> Bool {
        TaskVersion.region(from: effective, until: until, contains: instant)
    }
}

/// Events of linked versions, computed one UTC day at a time and reused for every sample of that day, so a
/// batch asks the schedule engine (and the zone database) once per task and day instead of once per sample.
struct EventCache {
    static let chunk: Double = 86_400
    private struct Key: Hashable {
        var version: UUID
        var chunk: Int64
    }
    private var entries: [Key: [ScheduledEvent]] = [:]
    /// The last day looked up for each linked version (samples of several types interleave).
    private var lastByVersion: [(chunk: Int64, events: [ScheduledEvent])?]

    init(versions: Int = 0) {
        lastByVersion = Array(repeating: nil, count: versions)
    }

    /// The events of `version` overlapping the UTC day of `instant` (callers keep those containing it).
    mutating func events(of linked: LinkedVersion, around instant: Date, zone: TimeZone) -> [ScheduledEvent] {
        let seconds = instant.timeIntervalSince1970
        let chunk = Int64((seconds / Self.chunk).rounded(.down))
        if linked.index < lastByVersion.count, let last = lastByVersion[linked.index], last.chunk == chunk {
            return last.events
        }
        let version = linked.version
        let key = Key(version: version.uuid, chunk: chunk)
        let overlapping: [ScheduledEvent]
        if let cached = entries[key] {
            overlapping = cached
        } else {
            if entries.count >= 4096 { entries.removeAll(keepingCapacity: true) }
            let from = Date(timeIntervalSince1970: Double(chunk) * Self.chunk)
            overlapping = version.task.schedule.storeEvents(
                from: from,
                to: from.addingTimeInterval(Self.chunk),
                zone: zone
            )
            entries[key] = overlapping
        }
        if linked.index < lastByVersion.count { lastByVersion[linked.index] = (chunk, overlapping) }
        return overlapping
    }
}

/// A sample id inside the matcher: the UUID's 16 bytes as two integers, ordered like the lowercase text form
/// (which is what outcome values store), so ordering and ties need no string.
struct SampleKey: Hashable, Comparable {
    var high: UInt64
    var low: UInt64

    /// No sample (`mean`/`sum` values); orders before every real id.
    static let none = SampleKey(high: 0, low: 0)

    init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    init(_ id: UUID) {
        (high, low) = withUnsafeBytes(of: id.uuid) { raw in
            (
                UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: 0, as: UInt64.self)),
                UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
            )
        }
    }

    init(bytes: Data) {
        self = UUID(bytes: bytes).map(SampleKey.init) ?? .none
    }

    /// The key of a stored sample id (16 bytes, ``UUID/data``); anything else names no sample.
    init(stored value: DatabaseValue) {
        guard case .blob(let bytes) = value.storage else {
            self = .none
            return
        }
        self.init(bytes: bytes)
    }

    var uuid: UUID? {
        guard self != .none else { return nil }
        var bytes = (high.bigEndian, low.bigEndian)
        return withUnsafeBytes(of: &bytes) { raw in UUID(bytes: Data(raw)) }
    }

    static func < (a: SampleKey, b: SampleKey) -> Bool { (a.high, a.low) < (b.high, b.low) }
}
