import Foundation

/// Fills a rule's message template: `{name}` is replaced by the value named, unknown names are kept as typed.
enum MessageTemplate {
    static func fill(_ template: String, _ values: [String: String]) -> String {
        var result = ""
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "{") {
            result += rest[..<open]
            guard let close = rest[open...].firstIndex(of: "}") else { break }
            let name = String(rest[rest.index(after: open)..<close])
            result += values[name] ?? "{\(name)}"
            rest = rest[rest.index(after: close)...]
        }
        return result + rest
    }

    /// `7`, `72.5`, `-2.3` (at most two decimals).
    static func number(_ value: Double) -> String {
        let rounded = (value * 100).rounded() / 100
        return rounded == rounded.rounded() && abs(rounded) < 1e15 ? String(Int64(rounded)) : String(rounded)
    }
}
