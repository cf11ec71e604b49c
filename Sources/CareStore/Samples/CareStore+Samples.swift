public import BridgeCore
import CarePlan
public import Foundation
import GRDB
import Logging

extension CareStore {
    /// Stores one sample and auto-completes the events it falls in. Storing the same sample again (same
    /// idempotency key) changes nothing.
    /// - Returns: what happened (inserted or duplicate, events updated).
    /// - Throws: ``CareStoreError`` (`.invalidSample`, `.database`).
    @discardableResult
    public func recordSample(
        _ sample: QuantitySample,
        recordedAt: Date = Date()
    ) async throws(CareStoreError) -> IngestReport {
        try await recordSamples([sample], recordedAt: recordedAt)
    }

    /// Stores many samples in one transaction and auto-completes every linked event they fall in.
    ///
    /// This is the fast path for history downloads and the pipeline: each sample is one prepared-statement
    /// insert; every event touched by the batch is derived once at the end.
    /// - Parameters:
    ///   - samples: samples in any order; duplicates (in the batch or already stored) are skipped.
    ///   - recordedAt: the ingest time stamped on new rows and on the outcome values they produce.
    /// - Throws: ``CareStoreError`` `.invalidSample` (naming the batch index) before anything is written, or
    ///   `.database`.
    @discardableResult
    public func recordSamples(
        _ samples: [QuantitySample],
        recordedAt: Date = Date()
    ) async throws(CareStoreError)
        -> IngestReport
    {
        for (index, sample) in samples.enumerated() {
            guard sample.value.isFinite || (sample.comparator != nil && !sample.value.isNaN) else {
                throw CareStoreError(
                    .invalidSample,
                    "sample \(index) (\(sample.type)): value \(sample.value) is not finite"
                )
            }
            guard sample.end >= sample.start else {
                throw CareStoreError(.invalidSample, "sample \(index) (\(sample.type)): end is before start")
            }
            guard sample.unit.convert(1, to: sample.type.canonicalUnit) != nil else {
                throw CareStoreError(
                    .invalidSample,
                    "sample \(index) (\(sample.type)): unit \(sample.unit) is not convertible to \(sample.type.canonicalUnit)"
                )
            }
        }
        let collectChanges = broadcaster.hasSubscribers
        let zone = bridgeZone
        let scope = patientScope
        let logger = logger
        let session = ingestSession
        // The store keeps whole milliseconds; outcomes derived now use the times a later derivation reads back.
        let recordedAt = SampleTable.date(SampleTable.milliseconds(recordedAt))
        let (report, changes) = try await write { db -> (IngestReport, [StoreChange]) in
            var report = IngestReport()
            var changes: [StoreChange] = []
            var state = try session.begin(db, zone: zone)
            let inserter = try SampleInserter(db: db, memory: state.inserter)
            var router = SampleRouter(registry: state.registry, scope: scope, batch: samples)
            let recordedSeconds = recordedAt.timeIntervalSince1970
            for original in samples {
                var id = original.id
                let sample = Self.wholeMilliseconds(original)
                if try state.aggregated.covers(sample, db: db) {
                    report.duplicates += 1
                    report.alreadyAggregated += 1
                    continue
                }
                let route = try router.route(sample, db: db)
                var inserted = try inserter.insert(sample, id: id, recordedAt: recordedSeconds, route: route)
                if !inserted, original.source.kind == .manual, let patient = route.patientID,
                    try Self.patientOfSample(db, id: id) != patient
                {
                    // Another patient's reading of the same type, value and time: this patient's is its own.
                    id = original.typedIn(forPatient: patient).id
                    inserted = try inserter.insert(sample, id: id, recordedAt: recordedSeconds, route: route)
                    if inserted { report.storedUnder[original.id] = id }
                }
                guard inserted else {
                    report.duplicates += 1
                    continue
                }
                report.inserted += 1
                if collectChanges { changes.append(.sampleAdded(id: id, type: sample.type, start: sample.start)) }
                if sample.isQuarantined {
                    report.quarantined += 1
                    continue
                }
                if let reason = route.inboxReason {
                    report.unassigned += 1
                    logger.debug(
                        "reading kept in the unassigned inbox",
                        metadata: ["sample.id": "\(id.uuidString.lowercased())", "reason": "\(reason)"]
                    )
                    continue
                }
                if let rule = route.routedBy, rule.hasPrefix("weight band") {
                    logger.info(
                        "routed by weight band",
                        metadata: ["patient": "\(route.patientID ?? "")", "rule": "\(rule)"]
                    )
                }
                if !state.matcher.add(sample, id: id, recordedAt: recordedAt, patient: route.patientID) {
                    report.unmatched += 1
                }
            }
            let updated = try state.matcher.apply(db, now: recordedAt)
            report.eventsUpdated = updated.count
            report.updatedEvents = updated
            if collectChanges { changes += updated.map(StoreChange.eventUpdated) }
            state.inserter = inserter.memory
            session.keep(state, db: db)
            return (report, changes)
        }
        broadcaster.publish(changes)
        if report.alreadyAggregated > 0 {
            logger.warning(
                "\(report.alreadyAggregated) reading(s) not stored again: their period was already vacuumed into aggregates from the same device (carebridge store stats)"
            )
        }
        if report.unassigned > 0 {
            logger.warning(
                "\(report.unassigned) reading(s) kept in the unassigned inbox (no owner, or a shared device that could not tell): carebridge samples --unassigned"
            )
        }
        if report.inserted > 0 {
            logger.debug(
                "recorded samples",
                metadata: [
                    "samples.inserted": "\(report.inserted)", "samples.duplicates": "\(report.duplicates)",
                    "events.updated": "\(report.eventsUpdated)",
                ]
            )
        }
        return report
    }

    /// Deletes a sample: the row becomes a tombstone (a later re-import stays deleted) and every outcome it fed
    /// is derived again from the remaining samples. The review list records who and why.
    /// - Parameters:
    ///   - reason: why it was deleted (the care app asks for one).
    ///   - author: the care app user who deleted it; nil for the command line.
    /// - Returns: false if no live sample has this id (in a scoped store: none of its patient).
    @discardableResult
    public func deleteSample(
        id: UUID,
        at date: Date = Date(),
        reason: String? = nil,
        by author: String? = nil
    ) async throws(CareStoreError) -> Bool {
        let zone = bridgeZone
        let scope = patientScope
        let result = try await write { db in
            try Self.deleteSample(db, id: id, at: date, reason: reason, by: author, zone: zone, scope: scope)
        }
        guard let result else { return false }
        broadcaster.publish(result)
        return true
    }

    /// The patient the sample stored under `id` belongs to (nil: the implicit patient, or no such sample).
    static func patientOfSample(_ db: Database, id: UUID) throws -> String? {
        var reader = try SampleRowReader(db)
        return try SampleTable.row(db, id: id, reader: &reader)?.stored.patientID
    }

    /// ``deleteSample(id:at:reason:by:)`` in the caller's transaction; nil when no live sample of `scope` has
    /// this id. A deleted reading is queued for every outbox channel: one that sent it sends its retraction
    /// (a quarantined one only the hub had, which learns the reading was rejected).
    static func deleteSample(
        _ db: Database,
        id: UUID,
        at date: Date,
        reason: String?,
        by author: String?,
        zone: TimeZone,
        scope: String?
    ) throws -> [StoreChange]? {
        var reader = try SampleRowReader(db)
        guard let row = try SampleTable.row(db, id: id, reader: &reader), row.stored.deletedDate == nil,
            scope == nil || row.stored.patientID == scope
        else { return nil }
        let stored = row.stored
        try SampleTable.markDeleted(db, row, at: date)
        try SampleReview(sampleID: id, action: .delete, reason: reason, author: author, reviewedAt: date).insert(db)
        try Self.enqueueRetraction(db, id: id, type: stored.sample.type, at: date)
        let updated = try rederiveEvents(db, of: stored, id: id, zone: zone, at: date)
        return [.sampleDeleted(id: id)] + updated.map(StoreChange.eventUpdated)
    }

    /// Derives again the events a deleted or released sample fed (a sample in the inbox fed none): what
    /// `deleteSample` and `releaseSample` both do after changing the row.
    private static func rederiveEvents(
        _ db: Database,
        of stored: StoredSample,
        id: UUID,
        zone: TimeZone,
        at date: Date
    ) throws -> [EventKey] {
        var matcher = try SampleMatcher(db: db, bridgeZone: zone)
        if stored.inboxReason == nil {
            _ = matcher.add(
                stored.sample,
                id: id,
                recordedAt: stored.recordedAt,
                patient: stored.patientID,
                forceFullDerivation: true
            )
        }
        return try matcher.apply(db, now: date)
    }

    /// Replaces a reading typed in by hand (a typo): the old one becomes a tombstone, the new one is stored, and
    /// the events either fed are derived again, in one transaction. Exports and the MQTT outbox carry the
    /// retraction of the old one (FHIR `entered-in-error`).
    /// - Parameters:
    ///   - id: the manual sample to replace.
    ///   - replacement: the corrected reading (source `manual`).
    /// - Returns: what storing the replacement did.
    /// - Throws: ``CareStoreError`` `.sampleNotFound` when no live manual sample has this id, `.invalidSample`
    ///   for a replacement that is not manual, is the same reading, or is of another type (naming both).
    @discardableResult
    public func replaceManualSample(
        id: UUID,
        with replacement: QuantitySample,
        recordedAt: Date = Date()
    ) async throws(CareStoreError) -> IngestReport {
        guard replacement.source.kind == .manual else {
            throw CareStoreError(.invalidSample, "only a manual reading can replace a manual reading")
        }
        guard replacement.id != id else {
            throw CareStoreError(
                .invalidSample,
                "the replacement is the same reading as \(id.uuidString.lowercased()); nothing to correct"
            )
        }
        let zone = bridgeZone
        let (report, changes) = try await write { db -> (IngestReport, [StoreChange]) in
            var reader = try SampleRowReader(db)
            guard let row = try SampleTable.row(db, id: id, reader: &reader), row.stored.deletedDate == nil else {
                throw CareStoreError(.sampleNotFound, "no live sample \(id.uuidString.lowercased())")
            }
            let stored = row.stored
            guard stored.sample.source.kind == .manual else {
                throw CareStoreError(
                    .sampleNotFound,
                    "sample \(id.uuidString.lowercased()) came from a device: only manual readings are replaced "
                        + "(delete it with `carebridge samples delete`)"
                )
            }
            guard stored.sample.type == replacement.type else {
                let oldID = id.uuidString.lowercased()
                throw CareStoreError(
                    .invalidSample,
                    "sample \(oldID) is a \(stored.sample.type.rawValue) reading, not a "
                        + "\(replacement.type.rawValue) one: a correction keeps the type; to record another type "
                        + "instead, delete it (`carebridge samples delete \(oldID)`) and ingest the new reading"
                )
            }
            try SampleTable.markDeleted(db, row, at: recordedAt)
            try Self.enqueueRetraction(db, id: id, type: stored.sample.type, at: recordedAt)
            var matcher = try SampleMatcher(db: db, bridgeZone: zone)
            _ = matcher.add(
                stored.sample,
                id: id,
                recordedAt: stored.recordedAt,
                patient: stored.patientID,
                forceFullDerivation: true
            )
            var report = IngestReport()
            let newID = replacement.id
            // The correction belongs where the reading it corrects did.
            let route =
                stored.inboxReason.map { SampleRoute.inbox($0) }
                ?? SampleRoute(patientID: stored.patientID, routedBy: stored.routedBy)
            let replacement = Self.wholeMilliseconds(replacement)
            if try SampleInserter(db: db).insert(
                replacement,
                id: newID,
                recordedAt: recordedAt.timeIntervalSince1970,
                route: route
            ) {
                report.inserted = 1
                if route.isInbox {
                    report.unassigned = 1
                } else if !matcher.add(
                    replacement,
                    id: newID,
                    recordedAt: recordedAt,
                    patient: route.patientID,
                    forceFullDerivation: true
                ) {
                    report.unmatched = 1
                }
            } else {
                report.duplicates = 1
            }
            let updated = try matcher.apply(db, now: recordedAt)
            report.eventsUpdated = updated.count
            report.updatedEvents = updated
            var changes: [StoreChange] = [.sampleDeleted(id: id)]
            if report.inserted == 1 {
                changes.append(.sampleAdded(id: newID, type: replacement.type, start: replacement.start))
            }
            return (report, changes + updated.map(StoreChange.eventUpdated))
        }
        broadcaster.publish(changes)
        return report
    }

    /// The sample with its start and end in whole milliseconds, as the store keeps them (so that outcomes derived
    /// while storing it use the times a later derivation reads back).
    static func wholeMilliseconds(_ sample: QuantitySample) -> QuantitySample {
        let start = SampleTable.date(SampleTable.milliseconds(sample.start))
        let end = SampleTable.date(SampleTable.milliseconds(sample.end))
        guard start != sample.start || end != sample.end else { return sample }
        var draft = sample.draft
        draft.start = start
        draft.end = end
        return QuantitySample(draft, id: sample.id)  // the same reading, stored under its id
    }

    /// Queues a deleted sample for every enabled outbox channel that takes its type, so a publisher that already
    /// sent it sends its retraction. (An entry still pending for it is kept: the sample was never published, and
    /// the publisher drops it.)
    static func enqueueRetraction(_ db: Database, id: UUID, type: QuantityType, at date: Date) throws {
        try OutboxChannelTypesSchema.enqueue(db, id: id, type: type, at: date)
    }

    /// Releases a quarantined sample: a person checked it and accepts it. It then completes the events it falls
    /// in, is queued for every enabled outbox channel and is exported like any sample. The quarantine reason is
    /// kept in the release note (`<reason> (quarantined: <why>)`).
    /// - Parameters:
    ///   - id: the sample.
    ///   - reason: why it is accepted (required: a release is a clinical decision and is recorded).
    ///   - author: the care app user who released it (in the review list); nil for the command line.
    /// - Returns: the released sample, or nil if no live quarantined sample has this id (in a scoped store: none
    ///   of its patient).
    /// - Throws: ``CareStoreError`` `.invalidSample` for an empty reason, or `.database`.
    @discardableResult
    public func releaseSample(
        id: UUID,
        reason: String,
        at date: Date = Date(),
        by author: String? = nil
    ) async throws(CareStoreError) -> StoredSample? {
        let reason = reason.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !reason.isEmpty else {
            throw CareStoreError(.invalidSample, "sample \(id.uuidString.lowercased()): a release needs a reason")
        }
        let zone = bridgeZone
        let scope = patientScope
        let result = try await write { db in
            try Self.releaseSample(db, id: id, reason: reason, at: date, by: author, zone: zone, scope: scope)
        }
        guard let result else { return nil }
        broadcaster.publish(result.1)
        return result.0
    }

    /// ``releaseSample(id:reason:at:by:)`` in the caller's transaction (`reason` trimmed, not empty); nil when no
    /// live quarantined sample of `scope` has this id.
    static func releaseSample(
        _ db: Database,
        id: UUID,
        reason: String,
        at date: Date,
        by author: String?,
        zone: TimeZone,
        scope: String?
    ) throws -> (StoredSample, [StoreChange])? {
        var reader = try SampleRowReader(db)
        guard let row = try SampleTable.row(db, id: id, reader: &reader), row.stored.deletedDate == nil,
            let quarantineReason = row.stored.sample.quarantineReason, scope == nil || row.stored.patientID == scope
        else { return nil }
        let note = "\(reason) (quarantined: \(quarantineReason))"
        try SampleTable.release(db, row, note: note)
        try SampleReview(sampleID: id, action: .release, reason: reason, author: author, reviewedAt: date)
            .insert(db)
        try OutboxChannelTypesSchema.enqueue(db, id: id, type: row.stored.sample.type, at: date)
        var stored = row.stored
        stored.sample.quarantineReason = nil
        stored.releaseReason = note
        let updated = try rederiveEvents(db, of: stored, id: id, zone: zone, at: date)
        return (
            stored,
            [.sampleAdded(id: id, type: stored.sample.type, start: stored.sample.start)]
                + updated.map(StoreChange.eventUpdated)
        )
    }

    /// How many live samples are in quarantine.
    public func quarantinedCount() async throws(CareStoreError) -> Int {
        try await read { db in
            try SampleTable.liveCount(db, flagged: SampleTable.quarantinedBit)
        }
    }

    /// One sample by id (deleted ones too).
    public func sample(id: UUID) async throws(CareStoreError) -> StoredSample? {
        try await read { db in
            var reader = try SampleRowReader(db)
            return try SampleTable.row(db, id: id, reader: &reader)?.stored
        }
    }

    /// Samples by measurement time, oldest first (then by the hash bits of their id).
    ///
    /// Reads every matching sample at once; for many, read them page by page with ``sampleCursor(matching:pageSize:)``.
    public func samples(matching query: SampleQuery) async throws(CareStoreError) -> [StoredSample] {
        var cursor = sampleCursor(matching: query, pageSize: query.limit ?? Int(Int32.max))
        // One page in the common case (no limit): handed on as read, not copied into a second array.
        guard var result = try await cursor.next() else { return [] }
        while let page = try await cursor.next() { result += page }
        return result
    }

    /// A cursor over the samples of `query` in (start, id) order that reads `pageSize` rows at a time (the query's
    /// `limit`, if any, caps the total).
    public func sampleCursor(matching query: SampleQuery, pageSize: Int = 5_000) -> SampleCursor {
        SampleCursor(store: self, query: query, pageSize: pageSize)
    }

    /// One page of ``SampleCursor``: up to `limit` rows after `position` in (start, id) order, the `unmatchedOnly`
    /// filter applied to them, and the position of the last row read (nil when no row was left to read).
    func samplePage(
        matching query: SampleQuery,
        after position: SampleCursor.Position?,
        limit: Int
    ) async throws(CareStoreError) -> (samples: [StoredSample], last: SampleCursor.Position?, exhausted: Bool) {
        let zone = bridgeZone
        return try await read { db -> ([StoredSample], SampleCursor.Position?, Bool) in
            let (statement, typeCode) = try samplePageStatement(db, matching: query, after: position, limit: limit)
            guard let statement else { return ([], nil, true) }
            var reader = try SampleRowReader(db)
            var samples = try reader.samples(
                db,
                sql: statement.sql,
                arguments: statement.arguments,
                limit: limit,
                typeCode: typeCode
            )
            let last = samples.last.map {
                SampleCursor.Position(start: $0.sample.start, id: $0.id, type: $0.sample.type)
            }
            let exhausted = samples.count < limit
            if query.unmatchedOnly {
                var matcher = try SampleMatcher(db: db, bridgeZone: zone)
                samples = samples.filter { stored in
                    guard stored.inboxReason == nil else { return true }
                    return !matcher.matches(
                        type: stored.sample.type,
                        at: stored.sample.start,
                        patient: stored.patientID
                    )
                }
            }
            return (samples, last, exhausted)
        }
    }

    /// The statement of a ``samplePage(matching:after:limit:)`` (nil when none of the query's types was ever
    /// stored), with the one type code every row has when the query reads one type. The rows are the query's
    /// patient's, else the store's scope's.
    func samplePageStatement(
        _ db: Database,
        matching query: SampleQuery,
        after position: SampleCursor.Position?,
        limit: Int
    ) throws -> (statement: SamplePageStatement?, typeCode: Int64?) {
        // The table's key is (type, start, idTail): every page reads one key range per type.
        let names = query.types.isEmpty ? nil : Set(query.types.map(\.rawValue))
        var codes: [Int64] = []
        var positionType: Int64?
        for row in try Row.fetchAll(db, sql: "SELECT code, name FROM quantityType ORDER BY code") {
            let code: Int64 = row[0]
            let name: String = row[1]
            if names?.contains(name) ?? true { codes.append(code) }
            if name == position?.type?.rawValue { positionType = code }
        }
        guard !codes.isEmpty else { return (nil, nil) }
        let after = position.map { position in
            (
                start: SampleTable.milliseconds(position.start), tail: SampleTable.split(position.id).tail,
                type: positionType
            )
        }
        let statement = SamplePageStatement(
            codes: codes,
            query: query,
            after: after,
            patient: query.patientID ?? patientScope,
            limit: limit
        )
        return (statement, codes.count == 1 ? codes[0] : nil)
    }

    /// SQLite's plan for a ``samplePage(matching:after:limit:)`` (`EXPLAIN QUERY PLAN`, one detail per line), for
    /// tests that the page reads key ranges only.
    func samplePagePlan(
        matching query: SampleQuery,
        after position: SampleCursor.Position?,
        limit: Int
    ) async throws(CareStoreError) -> [String] {
        try await read { db -> [String] in
            let (statement, _) = try samplePageStatement(db, matching: query, after: position, limit: limit)
            guard let statement else { return [] }
            return try QueryPlan.details(db, sql: statement.sql, arguments: statement.arguments)
        }
    }

    /// How many live samples the store holds.
    public func sampleCount() async throws(CareStoreError) -> Int {
        try await read { db in try SampleTable.liveCount(db) }
    }
}
