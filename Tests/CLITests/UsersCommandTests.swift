import Foundation
import TestSupport
import Testing

/// `carebridge users` and the care app's refusal to start without them: passwords only from a file or standard
/// input, links only to patients that exist, errors that say what and where.
@Suite struct UsersCommandTests {
    let scratch: ScratchDirectory
    let storePath: String

    init() throws {
        scratch = try ScratchDirectory("carebridge-users-")
        storePath = scratch.path("store.sqlite")
    }

    func run(_ arguments: [String], stdin: String? = nil) async throws -> CarebridgeProcess.Result {
        try await CarebridgeProcess.run(
            arguments + ["--store", storePath],
            environment: ["TZ": "Europe/Berlin"],
            stdin: stdin
        )
    }

    func addPatient(_ id: String) async throws {
        let added = try await run(["patients", "add", id, "--name", id.capitalized])
        #expect(added.status == 0, "\(added.stderr)")
    }

    @Test func aUserGetsAPasswordFromAFileOrStandardInputAndListsWithoutIt() async throws {
        try await addPatient("anna")
        let file = scratch.path("password")
        try Data("correct horse battery\n".utf8).write(to: URL(fileURLWithPath: file))
        chmod(file, 0o644)
        let added = try await run([
            "users", "add", "anna", "--name", "Anna Weber", "--role", "patient", "--sees", "anna", "--password-file",
            file,
        ])
        #expect(added.status == 0, "\(added.stderr)")
        #expect(added.stderr.contains("can be read by other users (mode 644); chmod 600 it"), "\(added.stderr)")
        let nurse = try await run(
            [
                "users", "add", "nurse", "--name", "Sam Ortiz", "--role", "clinician", "--sees", "anna",
                "--password-file", "-",
            ],
            stdin: "another long password\n"
        )
        #expect(nurse.status == 0, "\(nurse.stderr)")
        let listed = try await run(["users", "list", "--json"])
        let users = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
        #expect(users.map { $0["id"] as? String } == ["anna", "nurse"])
        #expect(users.first?["patients"] as? [String] == ["anna"])
        #expect(!listed.stdout.contains("$2"), "no password hash in the listing")
        let raw = try Data(contentsOf: URL(fileURLWithPath: storePath))
        #expect(raw.range(of: Data("correct horse battery".utf8)) == nil, "the store keeps a hash only")
    }

    @Test func badUsersAreRefusedWithWhatIsWrong() async throws {
        try await addPatient("anna")
        let short = try await run(
            ["users", "add", "anna", "--name", "Anna", "--role", "patient", "--sees", "anna", "--password-file", "-"],
            stdin: "short\n"
        )
        #expect(
            short.status == 64 && short.stderr.contains("a password needs at least 10 characters"),
            "\(short.stderr)"
        )
        let unknown = try await run(
            ["users", "add", "anna", "--name", "Anna", "--role", "patient", "--sees", "bob", "--password-file", "-"],
            stdin: "long enough password\n"
        )
        #expect(
            unknown.status == 65 && unknown.stderr.contains("no patient 'bob'; patients: anna"),
            "\(unknown.stderr)"
        )
        let badID = try await run(
            ["users", "add", "an na", "--name", "Anna", "--role", "patient", "--sees", "anna", "--password-file", "-"],
            stdin: "long enough password\n"
        )
        #expect(badID.status == 65 && badID.stderr.contains("user id 'an na' is not valid"), "\(badID.stderr)")
        let role = try await run(["users", "add", "x", "--name", "X", "--role", "doctor", "--password-file", "-"])
        #expect(role.status == 64 && role.stderr.contains("doctor"), "\(role.stderr)")
        let missing = try await run(["users", "remove", "nobody"])
        #expect(missing.status == 1 && missing.stderr.contains("no user 'nobody'"), "\(missing.stderr)")
    }

    @Test func theDaemonsCareAppRefusesToStartWithoutUsersAndServeRefusesBadListenOptions() async throws {
        try await addPatient("anna")
        // `serve` offers a one-time setup link instead (CareWebTests' SetupTests); a daemon's output is a log.
        let none = try await run(["run", "--http", "127.0.0.1:0"])
        #expect(none.status == 64)
        #expect(none.stderr.contains("the care app has no users yet"), "\(none.stderr)")
        let listen = try await run(["serve", "--listen", "127.0.0.1:99999"])
        #expect(listen.status == 64 && listen.stderr.contains("--listen '127.0.0.1:99999' is not ADDR:PORT"))
        let tls = try await run(["serve", "--tls-cert", scratch.path("missing.pem")])
        #expect(tls.status == 64 && tls.stderr.contains("--tls-cert and --tls-key go together"), "\(tls.stderr)")
    }

    @Test func aUsersTimeZoneIsSetOnAddAndWithSetZoneListedAndAnUnknownOneRefused() async throws {
        try await addPatient("anna")
        let added = try await run(
            [
                "users", "add", "lena", "--name", "Lena Weber", "--role", "caregiver", "--sees", "anna",
                "--time-zone", "America/New_York", "--password-file", "-",
            ],
            stdin: "correct horse battery\n"
        )
        #expect(added.status == 0, "\(added.stderr)")
        #expect(added.stdout.contains("times in America/New_York"), "\(added.stdout)")
        let anna = try await run(
            [
                "users", "add", "anna", "--name", "Anna Weber", "--role", "patient", "--sees", "anna",
                "--password-file", "-",
            ],
            stdin: "correct horse battery\n"
        )
        #expect(anna.status == 0 && anna.stdout.contains("times in the bridge's zone"), "\(anna.stdout)")
        let listed = try await run(["users", "list"])
        #expect(listed.stdout.contains("lena  Lena Weber  caregiver  anna  America/New_York"), "\(listed.stdout)")
        #expect(listed.stdout.contains("anna  Anna Weber  patient  anna  bridge's zone"), "\(listed.stdout)")

        let unknown = try await run(
            [
                "users", "add", "tom", "--name", "Tom", "--role", "admin", "--time-zone", "EST", "--password-file", "-",
            ],
            stdin: "correct horse battery\n"
        )
        #expect(unknown.status == 64, "\(unknown.stderr)")
        #expect(
            unknown.stderr.contains(
                "--time-zone: unknown time zone 'EST': use an IANA name such as Europe/Berlin, America/New_York or UTC"
            ),
            "\(unknown.stderr)"
        )
        let badSet = try await run(["users", "set-zone", "lena", "Europe/Berln"])
        #expect(badSet.status == 64 && badSet.stderr.contains("unknown time zone 'Europe/Berln'"), "\(badSet.stderr)")
        let neither = try await run(["users", "set-zone", "lena"])
        #expect(neither.status == 64 && neither.stderr.contains("give a zone (such as Europe/Berlin) or --bridge"))
        let nobody = try await run(["users", "set-zone", "nobody", "UTC"])
        #expect(nobody.status == 1 && nobody.stderr.contains("no user 'nobody'"), "\(nobody.stderr)")

        let moved = try await run(["users", "set-zone", "anna", "Asia/Tokyo"])
        #expect(moved.status == 0 && moved.stdout.contains("anna now sees times in Asia/Tokyo."), "\(moved.stderr)")
        let back = try await run(["users", "set-zone", "lena", "--bridge"])
        #expect(back.status == 0 && back.stdout.contains("lena now sees times in the bridge's zone."))
        let json = try await run(["users", "list", "--json"])
        let users = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        #expect(users.map { $0["timeZone"] as? String } == ["Asia/Tokyo", nil])
        #expect(users.last?["timeZone"] is NSNull, "null: the bridge's zone")
    }
}
