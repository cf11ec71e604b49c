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

/// Starts this benchmark executable again as a server (`arguments`, e.g. `--care-app-child STORE`), which prints
/// its URL as its first line once it listens.
/// - Parameter name: what the child is, for the error.
/// - Returns: the running child (the caller terminates it) and its URL.
/// - Throws: when the child cannot start or exits before printing an `http://` or `https://` URL.
func startBenchmarkServer(_ arguments: [String], name: String) throws -> (Process, String) {
    let child = Process()
    child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
    child.arguments = arguments
    let pipe = Pipe()
    child.standardOutput = pipe
    try child.run()
    guard let line = pipe.fileHandleForReading.readLine(), line.hasPrefix("http://") || line.hasPrefix("https://")
    else {
        child.terminate()
        throw NSError(domain: "carebridge-bench: \(name) did not start", code: 1)
    }
    return (child, line)
}

/// Resident memory of a process in MB (`VmRSS` of /proc).
func rss(of pid: Int32) -> Int {
    guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
    else { return 0 }
    return (Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0) / 1024
}

extension FileHandle {
    /// One line of what the child prints (its URL).
    func readLine() -> String? {
        var bytes: [UInt8] = []
        while true {
            let byte = readData(ofLength: 1)
            guard let first = byte.first else { return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self) }
            if first == UInt8(ascii: "\n") { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(first)
        }
    }
}
