import BridgeFoundation
public import CarePlan
public import Foundation
import GRDB

/// What saving a patient, plan or contact did.
public enum PeopleSaveResult: String, Sendable, Hashable {
    case added, updated, unchanged
}

extension CareStore {
    /// This store, reading and writing the care data of one patient: tasks, events, samples and exports are
    /// those of the patient's plans; manual readings and device readings recorded through it belong to the
    /// patient. Nil: every patient, and device readings routed by the registry.
    public func scoped(to patientID: String?) -> CareStore {
        var copy = self
        copy.patientScope = patientID
        return copy
    }

    /// The patient a command means: `requested` when it is a live patient; without one, the only patient (nil
    /// when the store has none, as before patients existed).
    /// - Throws: ``CareStoreError`` `.patientNotFound` (naming the patients there are) or `.patientRequired` when
    ///   the store has several and none was named.
    public func resolvePatient(_ requested: String?) async throws(CareStoreError) -> String? {
        try await read { db in try Self.resolvePatient(db, requested) }
    }

    /// ``resolvePatient(_:)`` in the caller's transaction.
    static func resolvePatient(_ db: Database, _ requested: String?) throws -> String? {
        let ids = try livePatients(db).map(\.id)
        if let requested {
            guard ids.contains(requested) else {
                throw CareStoreError(
                    .patientNotFound,
                    "no patient '\(requested)' in the store; \(NameSuggestion.didYouMean(requested, in: ids))"
                        + (ids.isEmpty
                            ? "it has none (add one with `carebridge patients add`)"
                            : "patients: \(ids.joined(separator: ", "))")
                )
            }
            return requested
        }
        guard ids.count > 1 else { return ids.first }
        throw CareStoreError(
            .patientRequired,
            "the store has \(ids.count) patients (\(ids.joined(separator: ", "))): say which with --patient ID"
        )
    }

    /// The live patients (newest versions), by id in natural order (`bed-2` before `bed-10`).
    public func patients() async throws(CareStoreError) -> [Patient] {
        try await read { db in try Self.livePatients(db).map(\.patient) }
    }

    /// One live patient.
    public func patient(id: String) async throws(CareStoreError) -> Patient? {
        try await read { db in try Self.livePatients(db).first { $0.id == id }?.patient }
    }

    /// Every version of one patient, oldest first (tombstones included).
    public func patientVersions(
        id: String
    ) async throws(CareStoreError) -> [(patient: Patient, version: Int, created: Date, deleted: Date?)] {
        try await read { db in
            try PatientRecord.filter(Column("id") == id).order(Column("versionNumber")).fetchAll(db).map {
                ($0.patient, $0.versionNumber, $0.createdDate, $0.deletedDate)
            }
        }
    }

    /// The live plans, of one patient or all.
    public func plans(patientID: String? = nil) async throws(CareStoreError) -> [PatientPlan] {
        try await read { db in
            try Self.livePlans(db).map(\.plan).filter { patientID == nil || $0.patientID == patientID }
        }
    }

    /// The live contacts, of one patient's plans or all.
    public func contacts(patientID: String? = nil) async throws(CareStoreError) -> [CareContact] {
        try await read { db in try Self.contacts(db, patientID: patientID) }
    }

    static func contacts(_ db: Database, patientID: String?) throws -> [CareContact] {
        let plans = try livePlans(db)
        let wanted = Set(plans.filter { patientID == nil || $0.patientID == patientID }.map(\.id))
        return try ContactRecord.fetchAll(db, sql: Versioned.currentSQL("contact")).compactMap(\.contact)
            .filter { wanted.contains($0.planID) }
    }

    /// Adds a patient, or a new version of it when its fields changed (versions are never overwritten). A new
    /// patient gets a plan (`plan`, default: id and title from the patient). The first patient of a store that
    /// had none adopts everything recorded so far (tasks and samples of the implicit patient).
    /// - Throws: ``CareStoreError`` `.invalidPatient` for bad fields.
    @discardableResult
    public func savePatient(
        _ patient: Patient,
        plan: PatientPlan? = nil,
        at now: Date = Date()
    ) async throws(CareStoreError)
        -> PeopleSaveResult
    {
        // Checked before the transaction too, so that a store opened read-only gives the same answer.
        if let problem = patient.validationProblem(asOf: now) { throw CareStoreError(.invalidPatient, problem) }
        return try await write { db in try Self.savePatient(db, patient, plan: plan, now: now) }
    }

    /// Adds a plan of an existing patient, or versions it.
    @discardableResult
    public func savePlan(_ plan: PatientPlan, at now: Date = Date()) async throws(CareStoreError) -> PeopleSaveResult {
        try await write { db in try Self.savePlanOfPatient(db, plan, now: now) }
    }

    /// Adds a contact to a plan, or versions it.
    @discardableResult
    public func saveContact(
        _ contact: CareContact,
        at now: Date = Date()
    ) async throws(CareStoreError)
        -> PeopleSaveResult
    {
        try await saveContacts([contact], at: now)[0]
    }

    /// Adds or versions contacts in one transaction (a plan file's contact list): the live plans are read once,
    /// so a long list costs the same per contact at its end as at its start.
    /// - Returns: what happened to each, in order.
    @discardableResult
    public func saveContacts(
        _ contacts: [CareContact],
        at now: Date = Date()
    ) async throws(CareStoreError)
        -> [PeopleSaveResult]
    {
        guard !contacts.isEmpty else { return [] }
        return try await write { db in try Self.saveContacts(db, contacts, now: now) }
    }

    // MARK: - Internals

    /// The live patients' newest versions, by id in natural order (`bed-2` before `bed-10`).
    static func livePatients(_ db: Database) throws -> [PatientRecord] {
        guard try db.tableExists("patient") else { return [] }
        return try PatientRecord.fetchAll(db, sql: Versioned.currentSQL("patient"))
            .sorted { NaturalOrder.precedes($0.id, $1.id) }
    }

    static func livePlans(_ db: Database) throws -> [CarePlanRecord] {
        try CarePlanRecord.fetchAll(db, sql: Versioned.currentSQL("carePlan"))
    }

    /// ``savePatient(_:plan:at:)`` in the caller's transaction.
    static func savePatient(
        _ db: Database,
        _ patient: Patient,
        plan: PatientPlan?,
        now: Date
    ) throws -> PeopleSaveResult {
        if let problem = patient.validationProblem(asOf: now) { throw CareStoreError(.invalidPatient, problem) }
        let live = try livePatients(db)
        let result = try PatientRecord.saveVersion(db, patient, id: patient.id, now: now)
        var plan = plan ?? PatientPlan(id: patient.id, title: "Care plan of \(patient.name)", patientID: patient.id)
        plan.patientID = patient.id
        let hasPlan = try livePlans(db).contains { $0.patientID == patient.id }
        if !hasPlan || plan.id != patient.id {
            _ = try savePlan(db, plan, now: now)
        }
        if live.isEmpty {
            let planID = try livePlans(db).first { $0.patientID == patient.id }?.id ?? plan.id
            try adopt(db, patientID: patient.id, planID: planID)
        }
        return result
    }

    /// ``savePlan(_:at:)`` in the caller's transaction: the plan's patient must be live.
    static func savePlanOfPatient(_ db: Database, _ plan: PatientPlan, now: Date) throws -> PeopleSaveResult {
        guard try livePatients(db).contains(where: { $0.id == plan.patientID }) else {
            throw CareStoreError(.patientNotFound, "plan '\(plan.id)': no patient '\(plan.patientID)'")
        }
        return try savePlan(db, plan, now: now)
    }

    /// ``saveContacts(_:at:)`` in the caller's transaction.
    static func saveContacts(_ db: Database, _ contacts: [CareContact], now: Date) throws -> [PeopleSaveResult] {
        for contact in contacts where contact.id.isEmpty || contact.name.isEmpty {
            throw CareStoreError(.invalidPatient, "a contact needs an id and a name")
        }
        let plans = Set(try livePlans(db).map(\.id))
        return try contacts.map { contact in
            guard plans.contains(contact.planID) else {
                throw CareStoreError(.patientNotFound, "contact '\(contact.id)': no plan '\(contact.planID)'")
            }
            return try ContactRecord.saveVersion(db, contact, id: contact.id, now: now)
        }
    }

    static func savePlan(_ db: Database, _ plan: PatientPlan, now: Date) throws -> PeopleSaveResult {
        guard !plan.id.isEmpty, !plan.title.isEmpty else {
            throw CareStoreError(.invalidPatient, "a plan needs an id and a title")
        }
        return try CarePlanRecord.saveVersion(db, plan, id: plan.id, now: now) { newest in
            guard newest.patientID == plan.patientID else {
                throw CareStoreError(
                    .invalidPatient,
                    "plan '\(plan.id)' belongs to patient '\(newest.patientID)', not '\(plan.patientID)'"
                )
            }
        }
    }

    /// Moves what belongs to the implicit patient (tasks without a plan, samples without a patient outside the
    /// inbox) to a patient and plan. Outcomes, events and sample ids do not change.
    static func adopt(_ db: Database, patientID: String, planID: String) throws {
        try db.execute(sql: "UPDATE task SET carePlanID = ? WHERE carePlanID IS NULL", arguments: [planID])
        try SampleTable.adopt(db, patientID: patientID)
    }

    /// The plan new tasks of `patientID` go to: its first live plan.
    static func defaultPlan(_ db: Database, patientID: String?) throws -> String? {
        guard let patientID else {
            // No scope: the only plan, if the store has exactly one patient.
            let patients = try livePatients(db)
            guard patients.count == 1 else { return nil }
            return try livePlans(db).first { $0.patientID == patients[0].id }?.id
        }
        return try livePlans(db).first { $0.patientID == patientID }?.id
    }
}
