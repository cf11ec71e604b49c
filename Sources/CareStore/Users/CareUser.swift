public import Foundation

/// A person who uses the care app: the patient, a family member, a nurse or doctor, or the bridge's admin.
public struct CareUser: Sendable, Hashable, Identifiable {
    /// What a user may do. Every role but ``admin`` sees only the patients it is linked to.
    public enum Role: String, Sendable, Hashable, CaseIterable {
        /// The person the care plan is for: completes their own events.
        case patient
        /// Family or a friend: follows the patient's day and may complete events for them.
        case caregiver
        /// A nurse or doctor: the care team dashboard over the linked patients, acknowledges alerts.
        case clinician
        /// Runs the bridge: sees every patient.
        case admin
    }

    /// The login name: 1–64 letters, digits, `.`, `_`, `-` or `@`.
    public var id: String
    /// The name shown to people (`Anna Weber`).
    public var displayName: String
    public var role: Role
    /// The patients this user may see (ignored for ``Role/admin``, who sees all).
    public var patientIDs: [String]
    public var createdDate: Date
    /// The zone the care app shows this user's times in; nil: the bridge's zone (the plans' days are always the
    /// patient's, whatever the user's zone).
    public var timeZone: TimeZone?

    public init(
        id: String,
        displayName: String,
        role: Role,
        patientIDs: [String],
        createdDate: Date = Date(),
        timeZone: TimeZone? = nil
    ) {
        self.id = id
        self.displayName = displayName
        self.role = role
        self.patientIDs = patientIDs
        self.createdDate = createdDate
        self.timeZone = timeZone
    }

    /// The IANA zone names a user may choose, sorted (`Africa/Abidjan` … `UTC`).
    public static let zoneNames: [String] = Array(Set(TimeZone.knownTimeZoneIdentifiers + ["UTC"])).sorted()

    private static let knownZoneNames = Set(zoneNames)

    /// The zone with this IANA name, spelled exactly as the tz database does (`America/New_York`).
    /// - Throws: ``CareStoreError`` `.invalidUser` naming the zone when it is not one (`EST`, `Mars/Base`).
    public static func zone(named name: String) throws(CareStoreError) -> TimeZone {
        guard knownZoneNames.contains(name), let zone = TimeZone(identifier: name) else {
            throw CareStoreError(
                .invalidUser,
                "unknown time zone '\(name)': use an IANA name such as Europe/Berlin, America/New_York or UTC"
            )
        }
        return zone
    }

    /// Whether this user may see the patient's data.
    public func maySee(patientID: String) -> Bool {
        role == .admin || patientIDs.contains(patientID)
    }

    /// Whether this user may release or delete a patient's quarantined readings (a clinical decision): the care
    /// team (clinician) and the admin.
    public var mayReviewReadings: Bool {
        role == .clinician || role == .admin
    }

    /// Whether this user may see the unassigned inbox and file its readings under the patients they see. The
    /// inbox belongs to no patient yet, so it may hold anyone's readings: the care team, the admin and a
    /// caregiver linked to someone (the family member who knows whose weigh-in it was) see it; a patient does
    /// not.
    public var maySeeInbox: Bool {
        role == .clinician || role == .admin || (role == .caregiver && !patientIDs.isEmpty)
    }

    /// Refuses a user no store may keep: a login name that is not valid, an empty display name.
    /// - Throws: ``CareStoreError`` `.invalidUser` saying which.
    public func validate() throws(CareStoreError) {
        guard Self.isValidID(id) else {
            throw CareStoreError(
                .invalidUser,
                "user id '\(id)' is not valid: use 1–64 letters, digits, '.', '_', '-' or '@'"
            )
        }
        guard !displayName.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw CareStoreError(.invalidUser, "user '\(id)' needs a name (--name)")
        }
    }

    /// Whether `id` is a valid login name.
    public static func isValidID(_ id: String) -> Bool {
        (1...64).contains(id.count)
            && id.unicodeScalars.allSatisfy {
                ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0)
                    || "._-@".unicodeScalars.contains($0)
            }
    }
}
