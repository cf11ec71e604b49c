import CarePlan
public import Foundation

extension CareEvent {
    /// The events of these task versions overlapping `[from, to)`, each with its outcome: the rules of
    /// ``CareStore/events(matching:)`` (regions of a task's versions, the schedule engine in `zone`, the order by
    /// start, task and occurrence) over versions held elsewhere, such as those a bridge sent its hub.
    /// - Parameters:
    ///   - versions: every version of each task (tombstones included), in any order; `id` is the store-wide key.
    ///   - zone: the zone of the bridge that made them (a floating schedule's zone).
    ///   - outcome: the outcome recorded for a task version's occurrence, if any.
    /// - Throws: ``CareStoreError`` `.corruptRow` when a version's content cannot be used.
    public static func events(
        of versions: [StoredTask],
        from: Date,
        to: Date,
        zone: TimeZone,
        outcome: (_ version: UUID, _ occurrence: Int) -> Outcome?
    ) throws(CareStoreError) -> [CareEvent] {
        guard from < to else { return [] }
        let byUUID = Dictionary(versions.map { ($0.version, $0) }, uniquingKeysWith: { first, _ in first })
        let records = byUUID.values.map { stored in
            var record = TaskRecord(
                task: stored.task,
                uuid: stored.version,
                versionNumber: stored.versionNumber,
                previous: stored.previousVersion?.uuidString.lowercased(),
                effective: stored.effectiveDate,
                created: stored.createdDate,
                deleted: stored.deletedDate,
                key: stored.id
            )
            record.name = stored.taskName
            return record
        }.sorted { ($0.id, $0.versionNumber) < ($1.id, $1.versionNumber) }
        // Each version's content is read back the way the store reads its own rows.
        let chains: TaskVersions
        do {
            chains = try TaskVersions(records: records) { record in
                (try DecodedTasks.shared.task(for: record), byUUID[UUID(uuidString: record.uuid) ?? UUID()]?.patientID)
            }
        } catch let error as CareStoreError {
            throw error
        } catch {
            throw CareStoreError(.corruptRow, "a task version cannot be read: \(error)", cause: error)
        }
        return CareStore.merged(versions: chains.all, query: EventQuery(from: from, to: to), zone: zone) {
            version,
            scheduled in
            var outcomes: [Int: Outcome] = [:]
            for event in scheduled { outcomes[event.occurrence] = outcome(version.uuid, event.occurrence) }
            return CareStore.careEvents(version: version, scheduled: scheduled, zone: zone, outcomes: outcomes)
        }
    }
}
