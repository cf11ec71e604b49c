/// The IEEE 11073-10101 (MDC) codes GHS observations carry that CareBridge maps to its quantity types and units.
///
/// Observation types are full 32-bit codes (partition << 16 | term code); units are partition-4 term codes
/// (uint16). A code not listed here gives no sample: the observation is reported as unmapped, never dropped
/// silently.
/// - SeeAlso: IEEE 11073-10101 nomenclature; the HL7 Personal Health Device IG's code tables.
public enum MDCNomenclature {
    /// MDC observation type → quantity type and the code's reference name.
    public static let quantities: [UInt32: (type: QuantityType, name: String)] = [
        150_456: (.oxygenSaturation, "MDC_PULS_OXIM_SAT_O2"),
        149_530: (.heartRate, "MDC_PULS_OXIM_PULS_RATE"),
        149_546: (.heartRate, "MDC_PULS_RATE_NON_INV"),
        147_842: (.heartRate, "MDC_ECG_HEART_RATE"),
        150_364: (.bodyTemperature, "MDC_TEMP_BODY"),
        188_736: (.bodyMass, "MDC_MASS_BODY_ACTUAL"),
        188_740: (.height, "MDC_LEN_BODY_ACTUAL"),
        188_752: (.bodyMassIndex, "MDC_RATIO_MASS_BODY_LEN_SQ"),
        188_748: (.bodyFatPercentage, "MDC_BODY_FAT"),
        150_021: (.bloodPressureSystolic, "MDC_PRESS_BLD_NONINV_SYS"),
        150_022: (.bloodPressureDiastolic, "MDC_PRESS_BLD_NONINV_DIA"),
        150_023: (.meanArterialPressure, "MDC_PRESS_BLD_NONINV_MEAN"),
        160_184: (.bloodGlucose, "MDC_CONC_GLU_CAPILLARY_WHOLEBLOOD"),
        160_188: (.bloodGlucose, "MDC_CONC_GLU_CAPILLARY_PLASMA"),
    ]

    /// Compound observation types whose components are mapped one by one.
    public static let compounds: [UInt32: String] = [150_020: "MDC_PRESS_BLD_NONINV"]

    /// MDC unit code → unit.
    public static let units: [UInt16: HealthUnit] = [
        544: .percent,  // MDC_DIM_PERCENT
        1297: .centimetre,  // MDC_DIM_CENTI_M
        1280: .metre,  // MDC_DIM_X_M
        1376: .inch,  // MDC_DIM_INCH
        1728: .gram,  // MDC_DIM_X_G
        1731: .kilogram,  // MDC_DIM_KILO_G
        1760: .pound,  // MDC_DIM_LB
        1952: .kilogramPerSquareMetre,  // MDC_DIM_KG_PER_M_SQ
        2130: .milligramPerDecilitre,  // MDC_DIM_MILLI_G_PER_DL
        2720: .perMinute,  // MDC_DIM_BEAT_PER_MIN
        3843: .kilopascal,  // MDC_DIM_KILO_PASCAL
        3872: .millimetreOfMercury,  // MDC_DIM_MMHG
        4416: .fahrenheit,  // MDC_DIM_FAHR
        4722: .millimolePerLitre,  // MDC_DIM_MILLI_MOLE_PER_L
        6048: .celsius,  // MDC_DIM_DEGC
    ]
}
