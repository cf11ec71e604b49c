import Foundation

/// Runs this benchmark executable again with `arguments` (a measurement in a process of its own, so its peak
/// resident size is its own) and returns what it printed.
/// - Throws: when the child cannot start or exits with a non-zero status.
func runBenchmarkChild(_ arguments: [String]) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let output = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        throw NSError(domain: "carebridge-bench", code: Int(process.terminationStatus))
    }
    return String(decoding: output, as: UTF8.self)
}
