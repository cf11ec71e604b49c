extension HealthUnit {
    /// The unit as people write it on a screen (`°C` for `Cel`, `mmHg` for `mm[Hg]`, `bpm` for `/min`, `lb` for
    /// `[lb_av]`); the UCUM code when it has no common spelling. Stores, JSON and exports keep the UCUM code.
    public var displaySymbol: String {
        switch self {
        case .celsius: "°C"
        case .fahrenheit: "°F"
        case .millimetreOfMercury: "mmHg"
        case .perMinute: "bpm"
        case .kilogramPerSquareMetre: "kg/m²"
        case .ohm: "Ω"
        case .pound: "lb"
        case .inch: "in"
        default: rawValue
        }
    }
}
