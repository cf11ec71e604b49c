/// A care plan of one patient (CareKit's `OCKCarePlan`): tasks belong to a plan, a plan to a patient.
public struct PatientPlan: Sendable, Hashable, Codable {
    /// The developer id, stable across versions; unique in the store.
    public var id: String
    public var title: String
    /// The patient's id.
    public var patientID: String

    public init(id: String, title: String, patientID: String) {
        self.id = id
        self.title = title
        self.patientID = patientID
    }
}
