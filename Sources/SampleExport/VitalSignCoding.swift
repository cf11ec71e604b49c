public import BridgeCore

/// A code in a code system, as FHIR's `Coding`.
public struct FHIRCoding: Sendable, Hashable {
    public var system: String
    public var code: String
    public var display: String

    public init(system: String, code: String, display: String) {
        self.system = system
        self.code = code
        self.display = display
    }

    public static func loinc(_ code: String, _ display: String) -> FHIRCoding {
        FHIRCoding(system: VitalSignCoding.loincSystem, code: code, display: display)
    }
}

/// How one quantity type appears as a FHIR R4 vital-signs Observation: LOINC code(s), the profile it claims,
/// and the UCUM unit of `valueQuantity`.
///
/// The table follows care-store-semantics §12 and the R4 vital-signs profiles. Types without a code
/// (RR intervals, impedance, water and muscle mass, basal energy) have no coding and are skipped.
public struct VitalSignCoding: Sendable, Hashable {
    public static let loincSystem = "http://loinc.org"
    public static let ucumSystem = "http://unitsofmeasure.org"
    public static let categorySystem = "http://terminology.hl7.org/CodeSystem/observation-category"
    public static let profileBase = "http://hl7.org/fhir/StructureDefinition/"

    /// The LOINC codings, the first being the primary one (oxygen saturation carries two).
    public var codings: [FHIRCoding]
    /// The profile URL put in `meta.profile`.
    public var profile: String
    /// The UCUM unit of the value.
    public var unit: HealthUnit

    /// Blood pressure panel and its two components.
    public static let bloodPressurePanel = FHIRCoding.loinc(
        "85354-9",
        "Blood pressure panel with all children optional"
    )
    public static let systolic = FHIRCoding.loinc("8480-6", "Systolic blood pressure")
    public static let diastolic = FHIRCoding.loinc("8462-4", "Diastolic blood pressure")
    public static let bloodPressureProfile = profileBase + "bp"

    /// Glucose by the unit it was sent in.
    public static let glucoseMass = FHIRCoding.loinc("2339-0", "Glucose [Mass/volume] in Blood")
    public static let glucoseMoles = FHIRCoding.loinc("15074-8", "Glucose [Moles/volume] in Blood")

    /// The coding of `type`, or nil for a type FHIR export leaves out.
    ///
    /// Blood glucose is given here in mg/dL; ``FHIRBundleWriter`` switches to 15074-8 in mmol/L when the
    /// device or person gave a molar concentration. Height is given in `cm`, the unit the bodyheight profile
    /// allows (CareBridge stores metres).
    public static func of(_ type: QuantityType) -> VitalSignCoding? {
        let vitalsigns = profileBase + "vitalsigns"
        switch type {
        case .bodyMass:
            return VitalSignCoding(
                codings: [.loinc("29463-7", "Body weight")],
                profile: profileBase + "bodyweight",
                unit: .kilogram
            )
        case .bodyTemperature:
            return VitalSignCoding(
                codings: [.loinc("8310-5", "Body temperature")],
                profile: profileBase + "bodytemp",
                unit: .celsius
            )
        case .heartRate:
            return VitalSignCoding(
                codings: [.loinc("8867-4", "Heart rate")],
                profile: profileBase + "heartrate",
                unit: .perMinute
            )
        case .bodyMassIndex:
            return VitalSignCoding(
                codings: [.loinc("39156-5", "Body mass index (BMI) [Ratio]")],
                profile: profileBase + "bmi",
                unit: .kilogramPerSquareMetre
            )
        case .height:
            return VitalSignCoding(
                codings: [.loinc("8302-2", "Body height")],
                profile: profileBase + "bodyheight",
                unit: .centimetre
            )
        case .bodyFatPercentage:
            return VitalSignCoding(
                codings: [.loinc("41982-0", "Percentage of body fat Measured")],
                profile: vitalsigns,
                unit: .percent
            )
        case .leanBodyMass:
            return VitalSignCoding(
                codings: [.loinc("91557-9", "Lean body weight")],
                profile: vitalsigns,
                unit: .kilogram
            )
        case .oxygenSaturation:
            return VitalSignCoding(
                codings: [
                    .loinc("2708-6", "Oxygen saturation in Arterial blood"),
                    .loinc("59408-5", "Oxygen saturation in Arterial blood by Pulse oximetry"),
                ],
                profile: profileBase + "oxygensat",
                unit: .percent
            )
        case .bloodGlucose:
            return VitalSignCoding(codings: [glucoseMass], profile: vitalsigns, unit: .milligramPerDecilitre)
        case .bloodPressureSystolic:
            return VitalSignCoding(codings: [systolic], profile: vitalsigns, unit: .millimetreOfMercury)
        case .bloodPressureDiastolic:
            return VitalSignCoding(codings: [diastolic], profile: vitalsigns, unit: .millimetreOfMercury)
        case .meanArterialPressure:
            return VitalSignCoding(
                codings: [.loinc("8478-0", "Mean blood pressure")],
                profile: vitalsigns,
                unit: .millimetreOfMercury
            )
        case .rrInterval, .bodyImpedance, .bodyWaterMass, .muscleMass, .basalEnergyBurned:
            return nil
        }
    }
}
