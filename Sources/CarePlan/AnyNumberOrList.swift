import Foundation

/// A JSON scalar or list as rule objects hold them (numbers, unit text, `[lower, upper]`).
enum AnyNumberOrList: Codable, Hashable, Sendable {
    case number(Double)
    case text(String)
    case list([Double])

    var number: Double? { if case .number(let value) = self { value } else { nil } }
    var text: String? { if case .text(let value) = self { value } else { nil } }
    var list: [Double]? { if case .list(let value) = self { value } else { nil } }

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let number = try? container.decode(Double.self) {
            self = .number(number)
        } else if let list = try? container.decode([Double].self) {
            self = .list(list)
        } else {
            self = .text(try container.decode(String.self))
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .number(let value): try container.encode(value)
        case .text(let value): try container.encode(value)
        case .list(let value): try container.encode(value)
        }
    }
}
