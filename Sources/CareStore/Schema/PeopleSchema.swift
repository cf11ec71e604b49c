import CarePlan
import Foundation
import GRDB

/// Migration `"v8-people"`: patients, their care plans and contacts (versioned like tasks), tasks belonging to a
/// plan, samples belonging to a patient, the device registry, the unassigned inbox and the sharing audit list.
///
/// A store that already holds tasks or samples gets one patient `default` with one plan `default`, and every
/// task and sample moves to them: no outcome, sample id or event changes (the matcher pairs a sample with the
/// tasks of its own patient, and there is only one). A new, empty store gets no patient: everything belongs to
/// the implicit patient until the first one is added, which then adopts it (``CareStore/addPatient(_:plan:at:)``).
enum PeopleSchema {
    static let migrationName = "v8-people"
    /// The id of the patient and plan an existing store moves to.
    static let defaultID = "default"

    /// Appends the migration. Append-only: never edit it once released.
    static func register(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration(migrationName) { db in
            try db.execute(
                sql: """
                    -- One row per version, as for tasks: `id` is stable, `uuid` names the version, rows are never
                    -- updated, a version with `deletedDate` is a tombstone.
                    CREATE TABLE patient (
                        uuid TEXT PRIMARY KEY NOT NULL,
                        id TEXT NOT NULL,
                        versionNumber INTEGER NOT NULL,
                        previousVersionUUID TEXT REFERENCES patient(uuid),
                        name TEXT NOT NULL,
                        birthday TEXT,
                        sex TEXT,
                        allergies TEXT NOT NULL,
                        identifiers TEXT NOT NULL,
                        effectiveDate DOUBLE NOT NULL,
                        createdDate DOUBLE NOT NULL,
                        deletedDate DOUBLE,
                        UNIQUE (id, versionNumber)
                    );
                    CREATE TABLE carePlan (
                        uuid TEXT PRIMARY KEY NOT NULL,
                        id TEXT NOT NULL,
                        versionNumber INTEGER NOT NULL,
                        previousVersionUUID TEXT REFERENCES carePlan(uuid),
                        title TEXT NOT NULL,
                        patientID TEXT NOT NULL,
                        effectiveDate DOUBLE NOT NULL,
                        createdDate DOUBLE NOT NULL,
                        deletedDate DOUBLE,
                        UNIQUE (id, versionNumber)
                    );
                    CREATE TABLE contact (
                        uuid TEXT PRIMARY KEY NOT NULL,
                        id TEXT NOT NULL,
                        versionNumber INTEGER NOT NULL,
                        previousVersionUUID TEXT REFERENCES contact(uuid),
                        carePlanID TEXT NOT NULL,
                        -- JSON of the contact (name, category, role, organization, phones, messaging numbers,
                        -- emails, address, what it receives).
                        content TEXT NOT NULL,
                        effectiveDate DOUBLE NOT NULL,
                        createdDate DOUBLE NOT NULL,
                        deletedDate DOUBLE,
                        UNIQUE (id, versionNumber)
                    );

                    ALTER TABLE task ADD COLUMN carePlanID TEXT;
                    -- The patient a sample belongs to; NULL with `inboxReason` set: the unassigned inbox; NULL
                    -- without: the implicit patient of a store that has none. `routedBy` says how it was decided.
                    ALTER TABLE sample ADD COLUMN patientID TEXT;
                    ALTER TABLE sample ADD COLUMN inboxReason TEXT;
                    ALTER TABLE sample ADD COLUMN routedBy TEXT;
                    CREATE INDEX sample_inbox ON sample(start) WHERE inboxReason IS NOT NULL;

                    -- Which patient owns a device (slot NULL: the whole device), or one user slot of it; `shared`
                    -- rows list the patients of a slot-less shared device (matched by weight band).
                    CREATE TABLE deviceAssignment (
                        device TEXT NOT NULL,
                        slot INTEGER,
                        patientID TEXT NOT NULL,
                        shared BOOLEAN NOT NULL,
                        assignedAt DOUBLE NOT NULL
                    );
                    CREATE UNIQUE INDEX deviceAssignment_owner ON deviceAssignment(device, coalesce(slot, -1))
                        WHERE NOT shared;
                    CREATE UNIQUE INDEX deviceAssignment_shared ON deviceAssignment(device, patientID) WHERE shared;

                    -- What was shared with whom and when (append-only).
                    CREATE TABLE shareRecord (
                        id INTEGER PRIMARY KEY,
                        contactID TEXT NOT NULL,
                        patientID TEXT,
                        what TEXT NOT NULL,
                        channel TEXT NOT NULL,
                        detail TEXT,
                        sharedAt DOUBLE NOT NULL
                    );
                    """
            )
            let hasData =
                try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM task) OR EXISTS (SELECT 1 FROM sample)")
                ?? false
            if hasData {
                let now = Date()
                try PatientRecord(
                    Patient(id: defaultID, name: "Default patient"),
                    versionNumber: 1,
                    previous: nil,
                    now: now
                ).insert(db)
                try CarePlanRecord(
                    PatientPlan(id: defaultID, title: "Care plan", patientID: defaultID),
                    versionNumber: 1,
                    previous: nil,
                    now: now
                ).insert(db)
                // What `CareStore.adopt` did to the sample layout of that time (table `sample`, before
                // "v10-compact-samples").
                try db.execute(
                    sql: "UPDATE task SET carePlanID = ? WHERE carePlanID IS NULL",
                    arguments: [defaultID]
                )
                try db.execute(
                    sql: """
                        UPDATE sample SET patientID = ?, routedBy = 'adopted'
                        WHERE patientID IS NULL AND inboxReason IS NULL
                        """,
                    arguments: [defaultID]
                )
            }
        }
    }
}
