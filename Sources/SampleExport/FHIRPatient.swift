/// The patient a FHIR bundle is about, written as a `Patient` resource that every Observation's `subject`
/// references (the care store's patient, with the identifiers a clinic knows them by).
public struct FHIRPatient: Sendable, Hashable {
    /// The store's patient id (`urn:carebridge:patient` identifier; the resource's `fullUrl` is derived from it).
    public var id: String
    public var name: String
    /// `YYYY-MM-DD`.
    public var birthDate: String?
    /// `female`, `male`, `other`, `unknown`.
    public var gender: String?
    public var identifiers: [Identifier]

    public struct Identifier: Sendable, Hashable {
        public var system: String?
        public var value: String
        /// A v2-0203 code such as `MR`.
        public var type: String?

        public init(system: String?, value: String, type: String?) {
            self.system = system
            self.value = value
            self.type = type
        }
    }

    public init(
        id: String,
        name: String,
        birthDate: String? = nil,
        gender: String? = nil,
        identifiers: [Identifier] = []
    ) {
        self.id = id
        self.name = name
        self.birthDate = birthDate
        self.gender = gender
        self.identifiers = identifiers
    }
}
