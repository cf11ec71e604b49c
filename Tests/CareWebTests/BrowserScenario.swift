import Foundation
import TestSupport

/// Runs one scenario of `Browser/care_app.py`: Selenium driving Debian's chromium, headless, through
/// `/usr/bin/chromedriver`, against a running care app.
enum BrowserScenario {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String

        /// Both outputs, for a failed expectation's message.
        var output: String { "exit \(status)\n\(stdout)\(stderr)" }
    }

    /// Exit status of the script when selenium, axe-selenium-python, chromium or chromedriver is missing.
    static let notInstalled: Int32 = 3

    static var inCI: Bool { ProcessInfo.processInfo.environment["CI"] == "true" }

    static var script: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Browser/care_app.py")
    }

    private static let env = URL(fileURLWithPath: "/usr/bin/env")

    /// Runs `care_app.py SCENARIO ARGUMENTS…` to the end (the `python3` first in PATH, where `.ci/run` installs
    /// selenium and axe-selenium-python).
    static func run(
        _ scenario: String,
        _ arguments: [String],
        environment: [String: String] = [:]
    ) async throws -> Result {
        let output = try await ChildProcess.run(
            env,
            ["python3", script.path, scenario] + arguments,
            environment: environment
        )
        return Result(status: output.status, stdout: output.standardOutput, stderr: output.standardError)
    }

    /// Whether python3 with selenium and axe-selenium-python, chromium and chromedriver are all here.
    static let installed: Bool = {
        // Once, while the tests are planned (synchronously, before any runs).
        (try? ChildProcess.run(env, ["python3", script.path, "probe"]))?.status == 0
    }()

    /// Run the browser tests when the browser is installed, and always in CI (where a missing piece fails them).
    static var required: Bool { inCI || installed }
}
