import Synchronization

/// The codes of units CareBridge cannot convert, each given a number the first time it is seen, so that a
/// ``HealthUnit`` stays a plain number whatever text it names.
///
/// Such units come only from text people or files supply (a plan's linkage or target unit, a stored row),
/// so the table stays as small as the set of odd spellings in use; it only grows, and never changes a
/// number once given.
final class CustomUnits: Sendable {
    static let shared = CustomUnits()

    private struct Table {
        var codes: [String] = []
        var numbers: [String: UInt32] = [:]
    }

    private let table = Mutex(Table())

    /// The number of `code`, given now if it has none yet.
    func number(for code: String) -> UInt32 {
        table.withLock { table in
            if let number = table.numbers[code] { return number }
            let number = UInt32(table.codes.count)
            table.codes.append(code)
            table.numbers[code] = number
            return number
        }
    }

    func code(_ number: UInt32) -> String {
        table.withLock { $0.codes[Int(number)] }
    }
}
