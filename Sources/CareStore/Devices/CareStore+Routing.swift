import BridgeCore
public import Foundation
import GRDB
import Logging

/// One row of the device registry (`carebridge devices assign`).
public struct DeviceAssignment: Sendable, Hashable {
    /// The device's address or serial number, as given.
    public var device: String
    /// The user slot, nil for the whole device.
    public var slot: Int?
    public var patientID: String
    /// One of the patients sharing a slot-less device (matched by weight band), rather than its owner.
    public var shared: Bool
    public var assignedAt: Date

    public init(device: String, slot: Int? = nil, patientID: String, shared: Bool = false, assignedAt: Date) {
        self.device = device
        self.slot = slot
        self.patientID = patientID
        self.shared = shared
        self.assignedAt = assignedAt
    }
}

/// What assigning inbox readings did.
public struct InboxAssignment: Sendable, Hashable {
    /// The readings moved out of the inbox (the one named and the other values of the same measurement).
    public var samples: [UUID]
    /// Events of the patient's plans whose outcome changed.
    public var eventsUpdated: Int
}

extension CareStore {
    /// Registers who a device (or one user slot of it) belongs to, or adds a patient to the patients sharing a
    /// slot-less device. Readings recorded from now on are routed by it; readings already stored stay where
    /// they are (assign inbox readings with ``assignSample(id:to:at:)``).
    /// - Returns: the owner this replaced, if any (said by the caller: nothing changes silently).
    /// - Throws: ``CareStoreError`` `.patientNotFound`, `.invalidPatient` for an empty device name or a slot
    ///   outside 0…254.
    @discardableResult
    public func assignDevice(
        _ device: String,
        slot: Int? = nil,
        to patientID: String,
        shared: Bool = false,
        at now: Date = Date()
    ) async throws(CareStoreError) -> String? {
        let device = device.trimmingCharacters(in: .whitespaces).uppercased()
        guard !device.isEmpty else { throw CareStoreError(.invalidPatient, "a device needs an address or serial") }
        if let slot, !(0...254).contains(slot) {
            throw CareStoreError(.invalidPatient, "user slot \(slot) is outside 0…254")
        }
        if shared, slot != nil {
            throw CareStoreError(.invalidPatient, "a user slot has one owner; --shared is for devices without slots")
        }
        return try await write { db -> String? in
            _ = try Self.resolvePatient(db, patientID)
            if shared {
                try db.execute(
                    sql: """
                        INSERT OR IGNORE INTO deviceAssignment (device, slot, patientID, shared, assignedAt)
                        VALUES (?, NULL, ?, 1, ?)
                        """,
                    arguments: [device, patientID, now.timeIntervalSince1970]
                )
                return nil
            }
            let previous = try String.fetchOne(
                db,
                sql: "SELECT patientID FROM deviceAssignment WHERE device = ? AND slot IS ? AND NOT shared",
                arguments: [device, slot]
            )
            try db.execute(
                sql: "DELETE FROM deviceAssignment WHERE device = ? AND slot IS ? AND NOT shared",
                arguments: [device, slot]
            )
            try db.execute(
                sql:
                    "INSERT INTO deviceAssignment (device, slot, patientID, shared, assignedAt) VALUES (?, ?, ?, 0, ?)",
                arguments: [device, slot, patientID, now.timeIntervalSince1970]
            )
            return previous == patientID ? nil : previous
        }
    }

    /// The device registry, by device then slot.
    public func deviceAssignments() async throws(CareStoreError) -> [DeviceAssignment] {
        try await read { db in try Self.deviceAssignments(db) }
    }

    /// The device registry, by device then slot, in the caller's transaction.
    static func deviceAssignments(_ db: Database) throws -> [DeviceAssignment] {
        try Row.fetchAll(
            db,
            sql:
                "SELECT device, slot, patientID, shared, assignedAt FROM deviceAssignment ORDER BY device, slot, patientID"
        ).map {
            DeviceAssignment(
                device: $0[0],
                slot: $0[1],
                patientID: $0[2],
                shared: $0[3],
                assignedAt: Date(timeIntervalSince1970: $0[4])
            )
        }
    }

    /// Files a reading from the unassigned inbox under a patient, together with the other values of the same
    /// measurement (same device and measurement time: a weigh-in's fat and BMI go with its weight). The events of
    /// that patient's plans complete from them at their original measurement time.
    /// - Parameter author: the care app user who filed it (in the review list); nil for the command line.
    /// - Throws: ``CareStoreError`` `.sampleNotFound` when no live inbox sample has this id, `.patientNotFound`.
    @discardableResult
    public func assignSample(
        id: UUID,
        to patientID: String,
        at now: Date = Date(),
        by author: String? = nil
    ) async throws(CareStoreError)
        -> InboxAssignment
    {
        let zone = bridgeZone
        let (assignment, changes) = try await write { db -> (InboxAssignment, [StoreChange]) in
            _ = try Self.resolvePatient(db, patientID)
            var reader = try SampleRowReader(db)
            let found = try SampleTable.row(db, id: id, reader: &reader)
            guard let sample = found, sample.stored.deletedDate == nil, sample.stored.inboxReason != nil else {
                let filed = found.flatMap { $0.stored.deletedDate == nil ? $0.stored.patientID : nil }
                throw CareStoreError(
                    .sampleNotFound,
                    "sample \(id.uuidString.lowercased()) is not in the unassigned inbox"
                        + (filed.map { " (it belongs to patient '\($0)')" } ?? "")
                )
            }
            // The whole measurement: every inbox value of the same device at the same instant (a body
            // composition result split over two packets too); a manual reading is only itself.
            var rows = [sample]
            if sample.stored.sample.source.device != nil {
                let others = try reader.rows(
                    db,
                    where: """
                        r.type IN (SELECT code FROM quantityType) AND r.start = ?
                        AND r.state & \(SampleTable.deletedBit | SampleTable.inboxBit) = \(SampleTable.inboxBit)
                        AND r.series IN (
                            SELECT id FROM sampleSeries WHERE deviceID = (SELECT deviceID FROM sampleSeries WHERE id = ?)
                        )
                        """,
                    arguments: [sample.key.start, sample.series]
                )
                rows += others.filter { $0.id != sample.id }
            }
            rows.sort { ($0.stored.sample.start, $0.id.uuidString) < ($1.stored.sample.start, $1.id.uuidString) }
            var matcher = try SampleMatcher(db: db, bridgeZone: zone)
            var moved: [UUID] = []
            var changes: [StoreChange] = []
            for row in rows {
                let stored = row.stored
                try SampleTable.setRoute(
                    db,
                    row,
                    SampleRoute(patientID: patientID, routedBy: "assigned (was: \(stored.inboxReason ?? ""))")
                )
                moved.append(row.id)
                try SampleReview(sampleID: row.id, action: .assign, reason: patientID, author: author, reviewedAt: now)
                    .insert(db)
                changes.append(.sampleAdded(id: row.id, type: stored.sample.type, start: stored.sample.start))
                if !stored.sample.isQuarantined {
                    _ = matcher.add(
                        stored.sample,
                        id: row.id,
                        recordedAt: stored.recordedAt,
                        patient: patientID,
                        forceFullDerivation: true
                    )
                }
            }
            // Publishers skip inbox readings of a store with several patients: queued again, now with a patient.
            for row in rows {
                try OutboxChannelTypesSchema.enqueue(db, id: row.id, type: row.stored.sample.type, at: now)
            }
            let updated = try matcher.apply(db, now: now)
            return (
                InboxAssignment(samples: moved, eventsUpdated: updated.count),
                changes + updated.map(StoreChange.eventUpdated)
            )
        }
        broadcaster.publish(changes)
        logger.info(
            "assigned inbox readings",
            metadata: ["patient": "\(patientID)", "samples": "\(assignment.samples.count)"]
        )
        return assignment
    }

    /// How many live readings wait in the unassigned inbox.
    public func unassignedCount() async throws(CareStoreError) -> Int {
        try await read { db in
            try SampleTable.liveCount(db, flagged: SampleTable.inboxBit)
        }
    }
}
