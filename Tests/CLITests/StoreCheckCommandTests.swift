import Foundation
import TestSupport
import Testing

/// `carebridge store check` on a healthy store, one whose pages were overwritten (a failed disk), a file that
/// is not a store and a path with no store: what it says and its exit status.
@Suite struct StoreCheckCommandTests {
    /// This test's directory, removed when the test ends.
    let scratch: ScratchDirectory
    let storePath: String

    init() throws {
        scratch = try ScratchDirectory("store-check-")
        storePath = scratch.url.appendingPathComponent("store.sqlite").path
    }

    func run(_ arguments: [String]) async throws -> CarebridgeProcess.Result {
        try await CarebridgeProcess.run(["store", "check", "--store", storePath] + arguments)
    }

    /// A store with a few hundred readings (enough pages that overwriting some in the middle hits table data).
    func makeStore() async throws {
        let recording = PackageRoot.recording("heart-rate-strap-20-minutes.jsonl")
        let replay = try await CarebridgeProcess.run(["replay", "--store", storePath, recording])
        #expect(replay.status == 0, "\(replay.stderr)")
    }

    @Test func aHealthyStoreIsReportedHealthyAtTheCurrentSchema() async throws {
        try await makeStore()
        for arguments in [[String](), ["--quick"]] {
            let result = try await run(arguments)
            #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
            #expect(result.stdout.contains(arguments.isEmpty ? "integrity check: ok" : "quick check: ok"))
            #expect(result.stdout.contains("references: ok"))
            #expect(result.stdout.contains("schema: current (\(StoreMigrations.all.last!))"), "\(result.stdout)")
            #expect(result.stdout.hasSuffix("healthy\n"))
        }
        let json = try await run(["--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(object["healthy"] as? Bool == true)
        #expect((object["integrity"] as? [Any])?.isEmpty == true)
        #expect((object["schema"] as? [String: Any])?["state"] as? String == "current")
    }

    @Test func overwrittenPagesAreReportedAsDamageWithWhatToDo() async throws {
        try await makeStore()
        // Zeros over pages in the middle of the file, as a failing disk leaves them.
        let handle = try #require(FileHandle(forUpdatingAtPath: storePath))
        let size = try handle.seekToEnd()
        try handle.seek(toOffset: size / 2 / 4096 * 4096)
        try handle.write(contentsOf: Data(repeating: 0xA5, count: 3 * 4096))
        try handle.close()
        let before = try Data(contentsOf: URL(fileURLWithPath: storePath))
        let result = try await run([])
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("integrity check: "), "\(result.stdout)")
        #expect(result.stdout.contains("problem(s)"), "\(result.stdout)")
        #expect(result.stdout.contains(".recover | sqlite3 recovered.sqlite"), "\(result.stdout)")
        #expect(result.stdout.hasSuffix("NOT healthy\n"))
        // Looked at, not changed.
        #expect(try Data(contentsOf: URL(fileURLWithPath: storePath)) == before)
    }

    @Test func aFileThatIsNotAStoreIsDamageAndNoStoreIsExit74() async throws {
        try Data(repeating: 0x42, count: 8192).write(to: URL(fileURLWithPath: storePath))
        let garbage = try await run(["--json"])
        #expect(garbage.status == 1, "\(garbage.stdout)\(garbage.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(garbage.stdout.utf8)) as? [String: Any])
        #expect(object["healthy"] as? Bool == false)
        #expect((object["integrity"] as? [String])?.first?.contains("cannot be read as a SQLite database") == true)

        let missing = try await CarebridgeProcess.run([
            "store", "check", "--store", scratch.url.appendingPathComponent("typo.sqlite").path,
        ])
        #expect(missing.status == 74)
        #expect(missing.stderr.contains("no store at"), "\(missing.stderr)")
    }
}
