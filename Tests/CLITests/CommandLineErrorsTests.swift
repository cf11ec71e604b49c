import Foundation
import TestSupport
import Testing

/// What a user meets when a command is mistyped or asks for nothing: a version, "did you mean", the usage of
/// the subcommand that was run, and errors (not empty success) for an unknown task or a reversed range.
@Suite struct CommandLineErrorsTests {
    /// This test's directory, removed when the test ends.
    let scratch: ScratchDirectory
    var directory: URL { scratch.url }
    let storePath: String

    init() async throws {
        scratch = try ScratchDirectory("carebridge-errors-")
        storePath = scratch.url.appendingPathComponent("store.sqlite").path
        let plan = scratch.url.appendingPathComponent("plan.json")
        try Data(
            #"{"tasks": [{"id": "morning-weight", "title": "Weigh yourself", "kind": "assessment", "schedule": {"timeZone": "Europe/Berlin", "elements": [{"start": "2026-11-01T07:00:00", "interval": {"days": 1}, "duration": 3600}]}}]}"#
                .utf8
        ).write(to: plan)
        let applied = try await CarebridgeProcess.run(
            ["plan", "apply", plan.path, "--store", storePath],
            environment: ["TZ": "Europe/Berlin"]
        )
        #expect(applied.status == 0, "\(applied.stderr)")
    }

    func run(
        _ arguments: [String],
        environment: [String: String] = ["TZ": "Europe/Berlin"]
    ) async throws
        -> CarebridgeProcess.Result
    {
        try await CarebridgeProcess.run(arguments, environment: environment)
    }

    @Test func versionIsTheReleaseAndTheCheckoutsCommit() async throws {
        let result = try await run(["--version"])
        #expect(result.status == 0)
        #expect(result.stdout.first?.isNumber == true, "\(result.stdout)")
        // Run from this checkout's .build: the commit git itself names for HEAD.
        let git = try await ChildProcess.run(
            URL(fileURLWithPath: "/usr/bin/env"),
            ["git", "-C", PackageRoot.url.path, "rev-parse", "HEAD"]
        )
        if git.status == 0 {
            let head = git.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(result.stdout == "0.9.0-dev (git \(head.prefix(12)))\n", "\(result.stdout)")
        } else {
            #expect(result.stdout == "0.9.0-dev\n", "not a checkout: the release alone")
        }
    }

    @Test func anInstalledBinaryPrintsTheReleaseAlone() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("installed-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let installed = directory.appendingPathComponent("carebridge")
        try FileManager.default.copyItem(at: CarebridgeProcess.executable, to: installed)
        let result = try await CarebridgeProcess.run(["--version"], executable: installed)
        #expect(result.status == 0)
        #expect(result.stdout == "0.9.0-dev\n", "\(result.stdout)")
    }

    @Test(arguments: [
        (["evnts"], "Did you mean 'events'?"), (["samples", "relase", "x"], "Did you mean 'release'?"),
        (["ingets", "bodyMass", "72", "kg"], "Did you mean 'ingest'?"),
    ])
    func aMistypedSubcommandGetsDidYouMean(arguments: [String], expected: String) async throws {
        let result = try await run(arguments)
        #expect(result.status == 64)
        #expect(result.stderr.contains(expected), "\(result.stderr)")
    }

    @Test func aRecordingDirectoryThatCannotBeMadeIsRefusedBeforeTheStoreOrTheAdapter() async throws {
        // A regular file where a directory would have to be: refused even for root, and before `run` opens the
        // store (none is created) or looks for an adapter.
        let file = directory.appendingPathComponent("not-a-directory").path
        #expect(FileManager.default.createFile(atPath: file, contents: Data("x".utf8)))
        let store = directory.appendingPathComponent("fresh.sqlite").path
        for record in [file, file + "/recordings", file + "/a/b"] {
            let result = try await run(["run", "--store", store, "--adapter", "hci9", "--record", record])
            #expect(result.status == 64, "\(record): \(result.stderr)")
            #expect(result.stderr.contains("--record \(record):"), "\(result.stderr)")
            #expect(result.stderr.contains("is not a directory"), "\(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: store))
        }
    }

    @Test func anErrorFoundWhileRunningPrintsTheSubcommandsUsage() async throws {
        let result = try await run(["samples", "--from", "2026-11-20", "--to", "2026-11-10", "--store", storePath])
        #expect(result.status == 64)
        #expect(result.stderr.contains("--from 2026-11-20 is not before --to 2026-11-10"), "\(result.stderr)")
        #expect(result.stderr.contains("Usage: carebridge samples list"), "\(result.stderr)")
        #expect(!result.stderr.contains("carebridge <subcommand>"), "\(result.stderr)")
    }

    @Test(arguments: [["samples"], ["export", "--format", "csv"], ["events"], ["adherence"]])
    func aReversedRangeIsAnError(command: [String]) async throws {
        let result = try await run(command + ["--from", "2026-11-20", "--to", "2026-11-10", "--store", storePath])
        #expect(result.status == 64, "\(command): \(result.stdout)")
        #expect(result.stderr.contains("is not before --to"), "\(result.stderr)")
    }

    @Test func anUnknownTaskIsAnErrorWithTheKnownTasks() async throws {
        let result = try await run(["events", "--task", "morning-weigth", "--from", "2026-11-20", "--store", storePath])
        #expect(result.status == 1, "\(result.stdout)")
        #expect(result.stderr.contains("no task 'morning-weigth'"), "\(result.stderr)")
        #expect(result.stderr.contains("did you mean 'morning-weight'?"), "\(result.stderr)")
        let known = try await run(["events", "--task", "morning-weight", "--from", "2026-11-20", "--store", storePath])
        #expect(known.status == 0 && known.stdout.contains("morning-weight"), "\(known.stderr)")
    }

    @Test func exportValidatesTheSubjectAndWarnsWithoutOne() async throws {
        let bad = try await run(["export", "--format", "fhir", "--subject", "123", "--store", storePath])
        #expect(bad.status == 64)
        #expect(bad.stderr.contains("--subject: '123' is not a FHIR reference"), "\(bad.stderr)")
        let none = try await run(["export", "--format", "fhir", "--store", storePath])
        #expect(none.status == 0, "\(none.stderr)")
        #expect(none.stderr.contains("warning: no --subject"), "\(none.stderr)")
        let good = try await run(["export", "--format", "fhir", "--subject", "Patient/p1", "--store", storePath])
        #expect(good.status == 0 && !good.stderr.contains("warning"), "\(good.stderr)")
    }

    /// systemd and containers set TZ to a file; the zone is the one that file names.
    @Test func aTimeZoneGivenAsAFileWorks() async throws {
        let berlin = try await run(
            ["events", "--from", "2026-11-20", "--json", "--store", storePath],
            environment: ["TZ": ":/usr/share/zoneinfo/Europe/Berlin"]
        )
        #expect(berlin.status == 0, "\(berlin.stderr)")
        #expect(berlin.stdout.contains("2026-11-20T07:00:00+01:00"), "\(berlin.stdout)")
        let local = try await run(
            ["events", "--from", "2026-11-20", "--store", storePath],
            environment: ["TZ": ":/etc/localtime"]
        )
        #expect(local.status == 0, "\(local.stderr)")
    }
}
