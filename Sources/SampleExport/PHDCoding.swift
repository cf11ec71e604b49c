public import BridgeCore
import BridgeFoundation

/// The IEEE 11073-10101 (MDC) codes and fixed values of HL7's Personal Health Device implementation guide (PHD IG
/// 2.0, `hl7.fhir.uv.phd`) that CareBridge writes beside the vital-signs LOINC codes.
///
/// - SeeAlso: PHD IG 2.0 "MDC Nomenclature codes" (`Observation.code` carries the 32-bit MDC code in
///   `urn:iso:std:iso:11073:10101`, and the vital-signs LOINC code in another coding), the profiles
///   PhdBaseObservation, PhdNumericObservation, PhdCompoundNumericObservation, PhdCoincidentTimeStampObservation,
///   PhdDevice and PhgDevice, and the value sets DeviceTypes11073MDC, MDCDeviceVersionTypes and MDCClockTypes
///   (github.com/HL7/phd `input/fsh`).
public enum PHDCoding {
    /// The MDC code system.
    public static let mdcSystem = "urn:iso:std:iso:11073:10101"
    /// Profiles claimed in `meta.profile`.
    public static let profileBase = "http://hl7.org/fhir/uv/phd/StructureDefinition/"
    public static let numericProfile = profileBase + "PhdNumericObservation"
    public static let compoundNumericProfile = profileBase + "PhdCompoundNumericObservation"
    public static let coincidentTimeStampProfile = profileBase + "PhdCoincidentTimeStampObservation"
    public static let deviceProfile = profileBase + "PhdDevice"
    public static let gatewayProfile = profileBase + "PhgDevice"
    /// The system of the conditional-create identifier (PhdBaseObservation `identifier[conditionalCreate]`).
    public static let identifierSystem = profileBase + "PhdBaseObservation"
    /// The category every PHD Observation carries (PhdBaseObservation `category[PHD-Observation]`, 1..1).
    public static let categorySystem = "http://hl7.org/fhir/uv/phd/CodeSystem/PhdObservationCategories"
    /// The extension naming the gateway (PhdBaseObservation `extension[GatewayDevice]`, 1..1).
    public static let gatewayExtension = "http://hl7.org/fhir/StructureDefinition/observation-gatewayDevice"
    /// The extension naming the coincident time stamp (PhdBaseObservation `extension[CoincidentTimeStamp]`).
    public static let coincidentTimeStampExtension = profileBase + "CoincidentTimeStampReference"
    /// Device identifier types (PhdDevice / PhgDevice `identifier` slices).
    public static let deviceIdentifierTypeSystem = "http://terminology.hl7.org/CodeSystem/ContinuaDeviceIdentifiers"
    /// `identifier[systemIdIdentifier].system`: an IEEE EUI-64.
    public static let systemIDSystem = "urn:oid:1.2.840.10004.1.1.1.0.0.1.0.0.1.2680"
    /// `identifier[btmacAddressIdentifier].system`: a Bluetooth EUI-48.
    public static let bluetoothAddressSystem = "http://hl7.org/fhir/sid/eui-48/bluetooth"

    /// `Device.type` of a PHD: MDC_MOC_VMS_MDS_SIMP (PhdDevice `type.coding[PhdCode]`).
    public static let phdDeviceType = mdc(65573, "MDC_MOC_VMS_MDS_SIMP")
    /// `Device.type` of a gateway: MDC_MOC_VMS_MDS_AHD (PhgDevice `type.coding[MDCType]`, fixed 531981).
    public static let gatewayDeviceType = mdc(531981, "MDC_MOC_VMS_MDS_AHD")
    /// The code of a coincident time stamp when the device reports wall-clock time (MDCClockTypes).
    public static let absoluteTime = mdc(67975, "MDC_ATTR_TIME_ABS")
    /// Device version types (MDCDeviceVersionTypes).
    public static let hardwareVersion = mdc(531974, "MDC_ID_PROD_SPEC_HW")
    public static let softwareVersion = mdc(531975, "MDC_ID_PROD_SPEC_SW")
    public static let firmwareVersion = mdc(531976, "MDC_ID_PROD_SPEC_FW")

    /// Blood pressure: the compound and its parts (IEEE 11073-10407).
    public static let bloodPressure = mdc(150020, "MDC_PRESS_BLD_NONINV")
    public static let systolic = mdc(150021, "MDC_PRESS_BLD_NONINV_SYS")
    public static let diastolic = mdc(150022, "MDC_PRESS_BLD_NONINV_DIA")
    public static let mean = mdc(150023, "MDC_PRESS_BLD_NONINV_MEAN")

    /// A coding in the MDC system.
    public static func mdc(_ code: UInt32, _ display: String) -> FHIRCoding {
        FHIRCoding(system: mdcSystem, code: String(code), display: display)
    }

    /// The MDC code of `sample`'s measurement, or nil where CareBridge knows none (lean body mass, and the types
    /// FHIR export leaves out).
    ///
    /// Heart rate depends on the device that measured it (a cuff, an oximeter, a strap); glucose on the sample
    /// type the meter reported (capillary whole blood, plasma, …; undetermined whole blood when it gave none).
    public static func code(of sample: QuantitySample) -> FHIRCoding? {
        switch sample.type {
        case .bodyMass: return mdc(188736, "MDC_MASS_BODY_ACTUAL")
        case .height: return mdc(188740, "MDC_LEN_BODY_ACTUAL")
        case .bodyMassIndex: return mdc(188752, "MDC_RATIO_MASS_BODY_LEN_SQ")
        case .bodyFatPercentage: return mdc(188748, "MDC_BODY_FAT")
        case .bodyTemperature: return mdc(150364, "MDC_TEMP_BODY")
        case .oxygenSaturation: return mdc(150456, "MDC_PULS_OXIM_SAT_O2")
        case .bloodPressureSystolic: return systolic
        case .bloodPressureDiastolic: return diastolic
        case .meanArterialPressure: return mean
        case .heartRate:
            switch sample.source.characteristic {
            case BluetoothUUID.bloodPressureMeasurement, BluetoothUUID.intermediateCuffPressure:
                return mdc(149546, "MDC_PULS_RATE_NON_INV")
            case BluetoothUUID.plxSpotCheckMeasurement, BluetoothUUID.plxContinuousMeasurement:
                return mdc(149530, "MDC_PULS_OXIM_PULS_RATE")
            default: return mdc(147842, "MDC_ECG_HEART_RATE")
            }
        case .bloodGlucose:
            switch sample.metadata["sampleType"] {
            case "capillary whole blood": return mdc(160184, "MDC_CONC_GLU_CAPILLARY_WHOLEBLOOD")
            case "capillary plasma": return mdc(160188, "MDC_CONC_GLU_CAPILLARY_PLASMA")
            case "venous whole blood": return mdc(160192, "MDC_CONC_GLU_VENOUS_WHOLEBLOOD")
            case "venous plasma": return mdc(160196, "MDC_CONC_GLU_VENOUS_PLASMA")
            case "arterial whole blood": return mdc(160200, "MDC_CONC_GLU_ARTERIAL_WHOLEBLOOD")
            case "arterial plasma": return mdc(160204, "MDC_CONC_GLU_ARTERIAL_PLASMA")
            case "undetermined plasma": return mdc(160368, "MDC_CONC_GLU_UNDETERMINED_PLASMA")
            default: return mdc(160364, "MDC_CONC_GLU_UNDETERMINED_WHOLEBLOOD")
            }
        case .leanBodyMass, .rrInterval, .bodyImpedance, .bodyWaterMass, .muscleMass, .basalEnergyBurned:
            return nil
        }
    }

    /// The IEEE 11073 specialization (DeviceTypes11073MDC) of a device whose first reading is of `type`.
    public static func specialization(of type: QuantityType) -> FHIRCoding {
        switch type {
        case .bloodPressureSystolic, .bloodPressureDiastolic, .meanArterialPressure:
            return mdc(528391, "MDC_DEV_SPEC_PROFILE_BP")
        case .bodyMass, .height, .bodyMassIndex: return mdc(528399, "MDC_DEV_SPEC_PROFILE_SCALE")
        case .bodyFatPercentage, .leanBodyMass, .bodyImpedance, .bodyWaterMass, .muscleMass, .basalEnergyBurned:
            return mdc(528404, "MDC_DEV_SPEC_PROFILE_BCA")
        case .bodyTemperature: return mdc(528392, "MDC_DEV_SPEC_PROFILE_TEMP")
        case .oxygenSaturation: return mdc(528388, "MDC_DEV_SPEC_PROFILE_PULS_OXIM")
        case .bloodGlucose: return mdc(528401, "MDC_DEV_SPEC_PROFILE_GLUCOSE")
        case .heartRate, .rrInterval: return mdc(528425, "MDC_DEV_SPEC_PROFILE_HF_CARDIO")
        }
    }

    /// A Bluetooth address (`AA:BB:CC:DD:EE:FF`) as the guide writes an EUI-48 identifier (`AA-BB-CC-DD-EE-FF`),
    /// or nil when `address` is not one.
    public static func eui48(_ address: String) -> String? {
        let parts = address.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 6, parts.allSatisfy({ $0.count == 2 && $0.allSatisfy(\.isHexDigit) }) else { return nil }
        return parts.map { $0.uppercased() }.joined(separator: "-")
    }

    /// The System Id of a device that reports none: the PhdDevice profile's all zeros.
    public static let unknownSystemID = "00-00-00-00-00-00-00-00"

    /// An EUI-64 as the guide writes a System Id (`FE-ED-AB-EE-DE-AD-77-C3`: eight hex octets, upper case, dashes),
    /// or nil when `text` is not eight octets (dashes or colons).
    public static func eui64(_ text: String) -> String? {
        let parts = text.split(omittingEmptySubsequences: false) { $0 == "-" || $0 == ":" }
        guard parts.count == 8, parts.allSatisfy({ $0.count == 2 && $0.allSatisfy(\.isHexDigit) }) else { return nil }
        return parts.map { $0.uppercased() }.joined(separator: "-")
    }
}
