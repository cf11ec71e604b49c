import ArgumentParser
import CarePlan
import Foundation

/// Reading a care-plan file named on the command line, with the errors every command reports the same way.
enum PlanFile {
    /// Reads and checks the whole plan at `path`.
    /// - Throws: `ExitCode` 66 when the file cannot be read, 65 when it is malformed (after one line on stderr
    ///   naming the file, the JSON path and the problem, ending with `consequence`).
    static func load(_ path: String, zone: TimeZone, consequence: String = "nothing written") throws -> CarePlanDocument
    {
        guard let data = FileManager.default.contents(atPath: path) else {
            Output.error("cannot read plan file \(path)")
            throw ExitCode(StoreExit.noInput)
        }
        do {
            return try CarePlanDocument.parse(data, path: path, bridgeZone: zone)
        } catch {
            Output.error("\(error.description) (\(consequence))")
            throw ExitCode(StoreExit.invalidData)
        }
    }
}
