public import BridgeCore
import Foundation

/// Values for people: the unit symbols people use (`°C`, `mmHg`, `bpm`, `lb`) and a value shown at the
/// resolution the device sent it in (`120 mmHg` for 16.0 kPa, not `120.009852128 mmHg`). Stores, JSON and the
/// exports keep the exact value and the UCUM code; this is only how it is shown.
public enum DisplayQuantity {
    /// `°C` for `Cel`, `mmHg` for `mm[Hg]`, `bpm` for `/min`, `lb` for `[lb_av]`; other codes as they are.
    public static func symbol(_ unit: HealthUnit) -> String {
        unit.displaySymbol
    }

    /// How many decimals `sample.value` carries: those of the value as transmitted, shifted by the conversion
    /// (0.1 kPa is 0.75 mmHg: no decimal; 1 lb is 0.45 kg: one).
    public static func decimals(of sample: QuantitySample) -> Int {
        decimals(transmitted: sample.transmittedValue, in: sample.transmittedUnit, shownIn: sample.unit)
    }

    /// ``decimals(of:)`` for a value sent as `transmitted` in `unit` and shown in `shown`.
    public static func decimals(transmitted: Double, in unit: HealthUnit, shownIn shown: HealthUnit) -> Int {
        let sent = fractionDigits(transmitted)
        guard unit != shown, let zero = unit.convert(0, to: shown), let one = unit.convert(1, to: shown) else {
            return sent
        }
        let factor = abs(one - zero)
        guard factor > 0, factor.isFinite else { return sent }
        return min(9, max(0, sent + Int((-log10(factor) - 1e-9).rounded(.up))))
    }

    /// The digits after the decimal point in the shortest text of `value` (`0.0058` → 4, `5.8e-05` → 5, `160` → 0).
    public static func fractionDigits(_ value: Double) -> Int {
        guard value.isFinite else { return 0 }
        var text = value.description
        var exponent = 0
        if let e = text.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            exponent = Int(text[text.index(after: e)...]) ?? 0
            text = String(text[..<e])
        }
        var fraction = text.firstIndex(of: ".").map { String(text[text.index(after: $0)...]) } ?? ""
        while fraction.last == "0" { fraction.removeLast() }
        return max(0, fraction.count - exponent)
    }

    /// `value` rounded to `decimals`, trailing zeros dropped: `120`, `72.6`, `37`.
    public static func number(_ value: Double, decimals: Int) -> String {
        guard value.isFinite else { return value.description }
        var text = String(format: "%.\(max(0, decimals))f", value)
        if text.contains(".") {
            while text.last == "0" { text.removeLast() }
            if text.last == "." { text.removeLast() }
        }
        return text == "-0" ? "0" : text
    }

    /// The shortest text that reads back as `value`, without a trailing `.0`: `0.0058`, `160`, `72.5`.
    public static func exact(_ value: Double) -> String {
        guard value.isFinite else { return value.description }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return value.description
    }

    /// `72.6 kg`, `120 mmHg`, `37 °C`: the sample's value at its resolution with the unit's symbol.
    public static func value(of sample: QuantitySample) -> String {
        "\(number(sample.value, decimals: decimals(of: sample))) \(symbol(sample.unit))"
    }

    /// What the device sent, exactly: `160 lb`, `0.0058 mol/L`.
    public static func transmitted(of sample: QuantitySample) -> String {
        "\(exact(sample.transmittedValue)) \(symbol(sample.transmittedUnit))"
    }
}
