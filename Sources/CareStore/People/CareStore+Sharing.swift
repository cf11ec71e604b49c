import CarePlan
public import Foundation
import GRDB

/// One entry of the sharing audit list: what was shared with which contact, when and how.
public struct ShareRecord: Sendable, Hashable {
    public var id: Int64
    public var contactID: String
    public var patientID: String?
    /// What was shared: `report`, `alert`, …
    public var what: String
    /// How: `email`, `webhook`, `mqtt`, `file`, …
    public var channel: String
    /// A free description (the report's period, the alert's id, the file).
    public var detail: String?
    public var sharedAt: Date
}

extension ShareRecord {
    /// An entry before the store gives it its id and patient.
    init(id: Int64, contactID: String, what: String, channel: String, detail: String?, at sharedAt: Date) {
        self.init(
            id: id,
            contactID: contactID,
            patientID: nil,
            what: what,
            channel: channel,
            detail: detail,
            sharedAt: sharedAt
        )
    }
}

extension CareStore {
    /// Records that something was shared with a contact (append-only: the audit list is never edited).
    /// - Throws: ``CareStoreError`` `.patientNotFound` when no live contact has this id.
    @discardableResult
    public func recordShare(
        contactID: String,
        what: String,
        channel: String,
        detail: String? = nil,
        at now: Date = Date()
    ) async throws(CareStoreError) -> ShareRecord {
        let entry = ShareRecord(id: 0, contactID: contactID, what: what, channel: channel, detail: detail, at: now)
        return try await write { db in try Self.recordShare(db, entry) }
    }

    /// Appends `entry` (its id and patient filled in from the store) to the audit list.
    static func recordShare(_ db: Database, _ entry: ShareRecord) throws -> ShareRecord {
        let contacts = try contacts(db, patientID: nil)
        guard let contact = contacts.first(where: { $0.id == entry.contactID }) else {
            throw CareStoreError(
                .patientNotFound,
                "no contact '\(entry.contactID)'; contacts: \(contacts.map(\.id).joined(separator: ", "))"
            )
        }
        var entry = entry
        entry.patientID = try livePlans(db).first { $0.id == contact.planID }?.patientID
        try db.execute(
            sql: """
                INSERT INTO shareRecord (contactID, patientID, what, channel, detail, sharedAt)
                VALUES (?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                entry.contactID, entry.patientID, entry.what, entry.channel, entry.detail,
                entry.sharedAt.timeIntervalSince1970,
            ]
        )
        entry.id = db.lastInsertedRowID
        return entry
    }

    /// The sharing audit list, oldest first (of the scoped patient, or all).
    public func shares() async throws(CareStoreError) -> [ShareRecord] {
        let scope = patientScope
        return try await read { db in try Self.shares(db, of: scope) }
    }

    static func shares(_ db: Database, of scope: String?) throws -> [ShareRecord] {
        try Row.fetchAll(
            db,
            sql: """
                SELECT id, contactID, patientID, what, channel, detail, sharedAt FROM shareRecord
                WHERE ? IS NULL OR patientID = ? ORDER BY sharedAt, id
                """,
            arguments: [scope, scope]
        ).map {
            ShareRecord(
                id: $0[0],
                contactID: $0[1],
                patientID: $0[2],
                what: $0[3],
                channel: $0[4],
                detail: $0[5],
                sharedAt: Date(timeIntervalSince1970: $0[6])
            )
        }
    }
}
