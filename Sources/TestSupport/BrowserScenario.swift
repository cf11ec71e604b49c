package import Foundation

/// Runs one scenario of `Tests/CareWebTests/Browser/care_app.py`: Selenium driving Debian's chromium, headless,
/// through `/usr/bin/chromedriver`, against a running care app (a bridge's, or the hub's dashboard).
package enum BrowserScenario {
    package struct Result {
        package var status: Int32
        package var stdout: String
        package var stderr: String

        /// Both outputs, for a failed expectation's message.
        package var output: String { "exit \(status)\n\(stdout)\(stderr)" }
    }

    /// Exit status of the script when selenium, axe-selenium-python, chromium or chromedriver is missing.
    package static let notInstalled: Int32 = 3

    package static var inCI: Bool { ProcessInfo.processInfo.environment["CI"] == "true" }

    package static var script: URL {
        PackageRoot.url.appendingPathComponent("Tests/CareWebTests/Browser/care_app.py")
    }

    private static let env = URL(fileURLWithPath: "/usr/bin/env")

    /// Runs `care_app.py SCENARIO ARGUMENTS…` to the end (the `python3` first in PATH, where `.ci/run` installs
    /// selenium and axe-selenium-python).
    package static func run(
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
    package static let installed: Bool = {
        // Once, while the tests are planned (synchronously, before any runs).
        (try? ChildProcess.run(env, ["python3", script.path, "probe"]))?.status == 0
    }()

    /// Run the browser tests when the browser is installed, and always in CI (where a missing piece fails them).
    package static var required: Bool { inCI || installed }
}
