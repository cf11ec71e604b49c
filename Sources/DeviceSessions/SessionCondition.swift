public import BridgeCore
import Foundation

/// A condition on session variables, as a profile spells it: `"lastSequence"` (has a value),
/// `"!lastSequence"` (has none), a comparison `"received < lastSequence"` with `<`, `<=`, `==`, `!=`, `>`,
/// `>=` between variables and whole numbers, or a bit test `"features & 4"` (true when the two have a bit in
/// common: a feature flag a device announced). A comparison or bit test with a variable that has no value is false.
public struct SessionCondition: Sendable, Hashable, CustomStringConvertible {
    public enum Operand: Sendable, Hashable {
        case variable(String)
        case number(Int)
    }

    public enum Test: Sendable, Hashable {
        case defined(String)
        case undefined(String)
        case compare(Operand, String, Operand)
    }

    public var test: Test
    public var description: String

    static let operators = ["<=", ">=", "==", "!=", "<", ">", "&"]

    public init(_ text: String) throws(SessionScriptError) {
        description = text
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        for op in Self.operators {
            guard let range = trimmed.range(of: op) else { continue }
            let left = try Self.operand(trimmed[..<range.lowerBound], in: text)
            let right = try Self.operand(trimmed[range.upperBound...], in: text)
            test = .compare(left, op, right)
            return
        }
        if trimmed.hasPrefix("!") {
            let name = trimmed.dropFirst().trimmingCharacters(in: .whitespaces)
            guard Self.isVariable(Substring(name)) else { throw SessionScriptError(text, "expected !VARIABLE") }
            test = .undefined(name)
        } else {
            guard Self.isVariable(Substring(trimmed)) else {
                throw SessionScriptError(text, "expected VARIABLE, !VARIABLE, A < B (<, <=, ==, !=, >, >=) or A & B")
            }
            test = .defined(trimmed)
        }
    }

    /// Letters, digits and `_`, not starting with a digit.
    static func isName(_ text: Substring) -> Bool {
        guard let first = text.first, first.isLetter || first == "_" else { return false }
        return text.allSatisfy { ($0.isLetter || $0.isNumber || $0 == "_") && $0.isASCII }
    }

    /// A name, or `GROUP.name` (a device profile frame's conditions read a merged frame's fields as
    /// `FRAME.field`; the group may contain `-`).
    static func isVariable(_ text: Substring) -> Bool {
        guard let dot = text.lastIndex(of: ".") else { return isName(text) }
        let group = text[..<dot].replacingOccurrences(of: "-", with: "_")
        return isName(Substring(group)) && isName(text[text.index(after: dot)...])
    }

    private static func operand(_ text: Substring, in condition: String) throws(SessionScriptError) -> Operand {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let number = Int(trimmed) { return .number(number) }
        guard isVariable(Substring(trimmed)) else {
            throw SessionScriptError(condition, "'\(trimmed)' is neither a variable nor a whole number")
        }
        return .variable(trimmed)
    }

    /// Whether the condition holds for `variables`.
    public func holds(for variables: SessionVariables) -> Bool {
        switch test {
        case .defined(let name): return variables[name] != nil
        case .undefined(let name): return variables[name] == nil
        case .compare(let left, let op, let right):
            guard let a = Self.value(left, variables), let b = Self.value(right, variables) else { return false }
            switch op {
            case "<": return a < b
            case "<=": return a <= b
            case ">": return a > b
            case ">=": return a >= b
            case "==": return a == b
            case "&": return (a & b) != 0
            default: return a != b
            }
        }
    }

    private static func value(_ operand: Operand, _ variables: SessionVariables) -> Int? {
        switch operand {
        case .number(let number): number
        case .variable(let name): variables[name]?.integer
        }
    }
}
