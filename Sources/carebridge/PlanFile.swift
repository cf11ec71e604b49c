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
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            Output.error("cannot read plan file \(path): it is a directory; give the plan's .json file")
            throw ExitCode(StoreExit.noInput)
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            let reason =
                FileManager.default.fileExists(atPath: path) ? "permission denied" : "no such file"
            Output.error("cannot read plan file \(path): \(reason)")
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
