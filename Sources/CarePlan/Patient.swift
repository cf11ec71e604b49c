import BridgeFoundation
public import Foundation

/// A person whose care plans the store holds (CareKit's `OCKPatient`): name, birthday, sex, allergies, plus the
/// identifiers a clinic knows them by (a medical record number).
public struct Patient: Sendable, Hashable, Codable {
    /// The developer id, stable across versions (`bed-1`, `alice`).
    public var id: String
    /// The name as people read it.
    public var name: String
    /// `YYYY-MM-DD`, a calendar date without a zone.
    public var birthday: String?
    public var sex: Sex?
    public var allergies: [String]
    public var identifiers: [PatientIdentifier]

    public init(
        id: String,
        name: String,
        birthday: String? = nil,
        sex: Sex? = nil,
        allergies: [String] = [],
        identifiers: [PatientIdentifier] = []
    ) {
        self.id = id
        self.name = name
        self.birthday = birthday
        self.sex = sex
        self.allergies = allergies
        self.identifiers = identifiers
    }

    /// Administrative sex as FHIR codes it (`Patient.gender`), which CareKit's `OCKBiologicalSex` maps onto.
    public enum Sex: String, Sendable, Hashable, Codable, CaseIterable {
        case female, male, other, unknown
    }

    /// What is wrong with a patient's fields, or nil.
    public var validationProblem: String? {
        if id.isEmpty || id.contains(where: { $0.isWhitespace || $0 == "/" || $0 == "+" || $0 == "#" }) {
            return "patient id \"\(id)\" must be non-empty without spaces, '/', '+' or '#' (it names MQTT topics)"
        }
        if name.trimmingCharacters(in: .whitespaces).isEmpty { return "patient \(id): name must not be empty" }
        if let birthday, !Self.isCalendarDate(birthday) {
            return "patient \(id): birthday \"\(birthday)\" is not a date YYYY-MM-DD"
        }
        if let year = birthday.flatMap({ Int($0.prefix(4)) }), year < Self.earliestBirthYear {
            return
                "patient \(id): birthday \(birthday ?? "") is before \(Self.earliestBirthYear): nobody alive was born then "
                + "(a mistyped year?)"
        }
        for identifier in identifiers where identifier.value.isEmpty {
            return "patient \(id): identifier \(identifier.type ?? identifier.system ?? "") has no value"
        }
        return nil
    }

    /// Births before this year are refused (the oldest person on record lived 122 years).
    public static let earliestBirthYear = 1870

    /// ``validationProblem``, and a birthday after `now` (the latest calendar date anywhere on Earth then, UTC+14)
    /// is refused too.
    public func validationProblem(asOf now: Date) -> String? {
        if let problem = validationProblem { return problem }
        guard let birthday else { return nil }
        let latest = CivilDate.civil(
            dayNumber: Int64(((now.timeIntervalSince1970 + 14 * 3600) / 86_400).rounded(.down))
        )
        let today = String(format: "%04d-%02d-%02d", latest.year, latest.month, latest.day)
        if birthday > today { return "patient \(id): birthday \(birthday) is in the future (today is \(today))" }
        return nil
    }

    /// Whether `text` is a valid `YYYY-MM-DD` date.
    public static func isCalendarDate(_ text: String) -> Bool {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]), (1...12).contains(month)
        else { return false }
        return day >= 1 && day <= CivilDate.daysInMonth(year: year, month: month)
    }
}

/// One identifier of a patient: a medical record number, an insurance number.
public struct PatientIdentifier: Sendable, Hashable, Codable {
    /// The namespace (FHIR `Identifier.system`, e.g. `urn:oid:1.2.36.146.595.217.0.1`).
    public var system: String?
    /// The identifier itself.
    public var value: String
    /// A v2-0203 code such as `MR` (medical record number).
    public var type: String?

    public init(system: String? = nil, value: String, type: String? = nil) {
        self.system = system
        self.value = value
        self.type = type
    }
}
