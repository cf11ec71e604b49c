import BridgeFoundation
import CarePlan
import Foundation
import GRDB

/// One patient version (table `patient`).
struct PatientRecord: PeopleVersionRecord, Sendable {
    static let databaseTableName = "patient"
    var uuid: String
    var id: String
    var versionNumber: Int
    var previousVersionUUID: String?
    var name: String
    var birthday: String?
    var sex: String?
    /// JSON array of strings.
    var allergies: String
    /// JSON array of `{"system", "value", "type"}`.
    var identifiers: String
    var effectiveDate: Date
    var createdDate: Date
    var deletedDate: Date?

    init(_ patient: Patient, versionNumber: Int, previous: String?, now: Date, deleted: Bool = false) {
        uuid = UUID().uuidString.lowercased()
        id = patient.id
        self.versionNumber = versionNumber
        previousVersionUUID = previous
        name = patient.name
        birthday = patient.birthday
        sex = patient.sex?.rawValue
        allergies = PeopleJSON.encode(patient.allergies)
        identifiers = PeopleJSON.encode(patient.identifiers)
        effectiveDate = now
        createdDate = now
        deletedDate = deleted ? now : nil
    }

    var patient: Patient {
        Patient(
            id: id,
            name: name,
            birthday: birthday,
            sex: sex.flatMap(Patient.Sex.init(rawValue:)),
            allergies: PeopleJSON.decode([String].self, allergies) ?? [],
            identifiers: PeopleJSON.decode([PatientIdentifier].self, identifiers) ?? []
        )
    }

    var value: Patient? { patient }
}

/// One care-plan version (table `carePlan`).
struct CarePlanRecord: PeopleVersionRecord, Sendable {
    static let databaseTableName = "carePlan"
    var uuid: String
    var id: String
    var versionNumber: Int
    var previousVersionUUID: String?
    var title: String
    var patientID: String
    var effectiveDate: Date
    var createdDate: Date
    var deletedDate: Date?

    init(_ plan: PatientPlan, versionNumber: Int, previous: String?, now: Date, deleted: Bool = false) {
        uuid = UUID().uuidString.lowercased()
        id = plan.id
        self.versionNumber = versionNumber
        previousVersionUUID = previous
        title = plan.title
        patientID = plan.patientID
        effectiveDate = now
        createdDate = now
        deletedDate = deleted ? now : nil
    }

    var plan: PatientPlan { PatientPlan(id: id, title: title, patientID: patientID) }
    var value: PatientPlan? { plan }
}

/// One contact version (table `contact`).
struct ContactRecord: PeopleVersionRecord, Sendable {
    static let databaseTableName = "contact"
    var uuid: String
    var id: String
    var versionNumber: Int
    var previousVersionUUID: String?
    var carePlanID: String
    /// JSON of the ``CarePlan/CareContact``.
    var content: String
    var effectiveDate: Date
    var createdDate: Date
    var deletedDate: Date?

    init(_ contact: CareContact, versionNumber: Int, previous: String?, now: Date, deleted: Bool = false) {
        uuid = UUID().uuidString.lowercased()
        id = contact.id
        self.versionNumber = versionNumber
        previousVersionUUID = previous
        carePlanID = contact.planID
        content = PeopleJSON.encode(contact)
        effectiveDate = now
        createdDate = now
        deletedDate = deleted ? now : nil
    }

    var contact: CareContact? { PeopleJSON.decode(CareContact.self, content) }
    var value: CareContact? { contact }
}

/// JSON columns of the people tables: sorted keys, so equal content is equal text.
enum PeopleJSON {
    static func encode(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(value)).flatMap { String(data: $0, encoding: .utf8) } ?? "null"
    }

    static func decode<T: Decodable>(_ type: T.Type, _ text: String) -> T? {
        try? JSONDecoder().decode(type, from: Data(text.utf8))
    }
}

/// Versioned rows (patients, plans, contacts): the newest version of each id, tombstones left out.
enum Versioned {
    /// `SELECT * FROM <table>` restricted to the newest version of every id that is not a tombstone.
    static func currentSQL(_ table: String, where extra: String = "") -> String {
        """
        SELECT * FROM \(table) AS v WHERE v.versionNumber = (SELECT max(versionNumber) FROM \(table) WHERE id = v.id)
        AND v.deletedDate IS NULL \(extra.isEmpty ? "" : "AND (\(extra))") ORDER BY v.id
        """
    }
}
