import ArgumentParser
import BridgeCore
import Foundation

/// The `--type`, `--from` and `--to` of the commands that read samples (`samples`, `export`), read the one way
/// both document: types by name or alias, `--from` at or after, `--to` before (a bare date includes that day),
/// and a reversed range refused.
struct SampleSelection {
    var types: Set<QuantityType>
    var start: Date?
    var end: Date?

    /// - Throws: `ExitCode` (usage) after printing which type is unknown; `ValidationError` for a time that
    ///   cannot be read or a range whose end is not after its start.
    init(types texts: [String], from: String?, to: String?, zone: TimeZone) throws {
        types = []
        for text in texts {
            do {
                types.insert(try ManualReading.parseType(text))
            } catch {
                Output.error(error.description)
                throw ExitCode(StoreExit.usage)
            }
        }
        start = try from.map { try TimeArguments.parse($0, option: "--from", zone: zone) }
        end = try to.map { try TimeArguments.parseEnd($0, option: "--to", zone: zone) }
        try TimeArguments.checkOrder(start, end, from: from, to: to)
    }
}
