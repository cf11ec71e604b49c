/// Exact decimal rescaling of a Double's shortest text, so 1.13 m becomes `113` cm, not `112.99999999999999`.
enum DecimalText {
    /// `value × 10^power` written as decimal text, computed on the digits of `value.description`.
    /// - Returns: nil for a value that is not finite.
    static func scaled(_ value: Double, byPowerOfTen power: Int) -> String? {
        guard value.isFinite else { return nil }
        if power == 0 { return value.description }
        var text = value.description
        var negative = false
        if text.hasPrefix("-") {
            negative = true
            text.removeFirst()
        }
        // Split mantissa and exponent: "1.5e-05" → ("1.5", -5).
        var exponent = 0
        if let e = text.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            exponent = Int(text[text.index(after: e)...]) ?? 0
            text = String(text[..<e])
        }
        var integerDigits = text
        var fractionDigits = ""
        if let dot = text.firstIndex(of: ".") {
            integerDigits = String(text[..<dot])
            fractionDigits = String(text[text.index(after: dot)...])
        }
        // digits × 10^(shift) with all digits as one integer string.
        var digits = Array(integerDigits + fractionDigits)
        var pointPosition = integerDigits.count + exponent + power
        if pointPosition < 0 {
            digits = Array(repeating: "0", count: -pointPosition) + digits
            pointPosition = 0
        }
        if pointPosition > digits.count {
            digits += Array(repeating: "0", count: pointPosition - digits.count)
        }
        var whole = String(digits[..<pointPosition])
        var fraction = String(digits[pointPosition...])
        while whole.count > 1, whole.first == "0" { whole.removeFirst() }
        if whole.isEmpty { whole = "0" }
        while fraction.last == "0" { fraction.removeLast() }
        let body = fraction.isEmpty ? whole : whole + "." + fraction
        return negative && body != "0" ? "-" + body : body
    }
}
