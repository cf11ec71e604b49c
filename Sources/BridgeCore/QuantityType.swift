/// A kind of quantity CareBridge records, named as HealthKit names it (without the prefix).
public enum QuantityType: String, Sendable, Hashable, CaseIterable, Codable, CustomStringConvertible {
    case bodyMass
    case bodyMassIndex
    case height
    case bodyFatPercentage
    case leanBodyMass
    case bodyWaterMass
    case muscleMass
    case basalEnergyBurned
    case bodyImpedance
    case bodyTemperature
    case heartRate
    case rrInterval
    case bloodPressureSystolic
    case bloodPressureDiastolic
    case meanArterialPressure
    case bloodGlucose
    case oxygenSaturation

    /// The one unit every sample of this type is stored in (UCUM).
    public var canonicalUnit: HealthUnit {
        switch self {
        case .bodyMass, .leanBodyMass, .bodyWaterMass, .muscleMass: .kilogram
        case .bodyMassIndex: .kilogramPerSquareMetre
        case .height: .metre
        case .bodyFatPercentage, .oxygenSaturation: .percent
        case .basalEnergyBurned: .kilocalorie
        case .bodyImpedance: .ohm
        case .bodyTemperature: .celsius
        case .heartRate: .perMinute
        case .rrInterval: .millisecond
        case .bloodPressureSystolic, .bloodPressureDiastolic, .meanArterialPressure: .millimetreOfMercury
        case .bloodGlucose: .milligramPerDecilitre
        }
    }

    /// Words for people, e.g. `body mass`.
    public var title: String {
        switch self {
        case .bodyMass: "body mass"
        case .bodyMassIndex: "body mass index"
        case .height: "height"
        case .bodyFatPercentage: "body fat"
        case .leanBodyMass: "lean body mass"
        case .bodyWaterMass: "body water mass"
        case .muscleMass: "muscle mass"
        case .basalEnergyBurned: "basal energy burned"
        case .bodyImpedance: "body impedance"
        case .bodyTemperature: "body temperature"
        case .heartRate: "heart rate"
        case .rrInterval: "RR interval"
        case .bloodPressureSystolic: "systolic blood pressure"
        case .bloodPressureDiastolic: "diastolic blood pressure"
        case .meanArterialPressure: "mean arterial pressure"
        case .bloodGlucose: "blood glucose"
        case .oxygenSaturation: "oxygen saturation"
        }
    }

    public var description: String { rawValue }
}
