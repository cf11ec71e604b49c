import Foundation
import TestSupport
import Testing

/// Every URL option refuses a port outside 1…65535 before anything runs (`http://127.0.0.1:99999/` used to be
/// posted to port 34463), and no refusal echoes the URL's credentials or query.
@Suite struct URLOptionCommandTests {
    static let secret = "s3cr3t-T0KEN"

    /// (the command line before the URL, the option, the URL).
    static let cases: [([String], String, String)] = {
        let webhooks = [
            "http://127.0.0.1:99999/hook?token=\(secret)", "https://user:\(secret)@127.0.0.1:65536/hook",
            "http://127.0.0.1:0/hook?token=\(secret)", "ftp://user:\(secret)@127.0.0.1/hook?token=\(secret)",
        ]
        let brokers = ["mqtt://user:\(secret)@127.0.0.1:99999", "mqtts://user:\(secret)@127.0.0.1:0"]
        var cases: [([String], String, String)] = []
        for url in webhooks {
            cases.append((["alerts", "deliver"], "--webhook", url))
            cases.append((["run"], "--alert-webhook", url))
        }
        for url in brokers {
            cases.append((["alerts", "deliver"], "--mqtt", url))
            cases.append((["run"], "--mqtt", url))
            cases.append((["replay", "/nonexistent.jsonl"], "--mqtt", url))
        }
        return cases
    }()

    @Test("a URL option refuses a port out of range without echoing secrets", arguments: cases)
    func refusesWithoutEchoingSecrets(command: [String], option: String, url: String) async throws {
        let scratch = try ScratchDirectory("carebridge-url-")
        let store = scratch.url.appendingPathComponent("store.sqlite").path
        let result = try await CarebridgeProcess.run(
            command + [option, url, "--store", store],
            environment: ["TZ": "Europe/Berlin"]
        )
        #expect(result.status == 64, "\(command) \(option): \(result.status) \(result.stderr)")
        #expect(result.stderr.contains(option), "\(result.stderr)")
        #expect(!result.stderr.contains(Self.secret), "\(result.stderr)")
        #expect(!result.stdout.contains(Self.secret), "\(result.stdout)")
        if url.contains(":99999") || url.contains(":65536") || url.contains(":0") {
            #expect(result.stderr.contains("65535"), "\(result.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: store))
    }
}
