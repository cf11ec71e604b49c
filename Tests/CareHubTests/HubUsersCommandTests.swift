import CareHub
import CareWeb
import Foundation
import Logging
import TestSupport
import Testing

/// `carebridge hub users list|add|link|unlink|passwd` through the real binary on a real PostgreSQL: the same
/// options as the bridge's `users` commands, passwords only from a file or standard input, and what each change
/// leaves in the hub's store.
@Suite(.serialized) struct HubUsersCommandTests {
    let scratch: ScratchDirectory

    init() throws {
        scratch = try ScratchDirectory("carebridge-hubusers-")
    }

    func carebridge(_ arguments: [String], stdin: String? = nil) async throws -> CarebridgeRun {
        let output = try await ChildProcess.run(
            PackageRoot.carebridgeExecutable,
            arguments,
            environment: ["TZ": "Europe/Berlin"],
            stdin: stdin.map { Data($0.utf8) }
        )
        return CarebridgeRun(
            arguments: arguments,
            status: output.status,
            stdout: output.standardOutput,
            stderr: output.standardError
        )
    }

    @Test(.enabled(if: PostgresServer.testsEnabled, "PostgreSQL is not installed (apt-get install -y postgresql)"))
    func aUserIsListedLinkedUnlinkedAndGivenANewPasswordThatEndsTheirSessions() async throws {
        let postgres = try await PostgresServer(directory: scratch.url)
        try await postgres.start()
        do {
            try await exercise(postgres)
        } catch {
            await postgres.stop()
            throw error
        }
        await postgres.stop()
    }

    func exercise(_ postgres: PostgresServer) async throws {
        let passwordFile = scratch.path("db-password")
        let database = try postgres.databaseOptions(passwordFile: passwordFile)
        for (bridge, patient) in [("home-1", "ann"), ("home-2", "ben"), ("home-3", "cleo")] {
            let enrolled = try await carebridge(
                ["hub", "enrol"] + database + ["--bridge", bridge, "--patient", patient]
            )
            try #require(enrolled.status == 0, "\(enrolled)")
        }
        try ScratchDirectory.writeSecret("first-password-of-nina\n", to: scratch.path("nina.password"))
        let added = try await carebridge(
            ["hub", "users", "add", "nina", "--name", "Nina Park", "--role", "clinician", "--sees", "ann"]
                + database + ["--password-file", scratch.path("nina.password")]
        )
        #expect(added.status == 0, "\(added)")

        let listed = try await carebridge(["hub", "users", "list", "--json"] + database)
        #expect(listed.status == 0, "\(listed)")
        let users = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
        #expect(users.count == 1)
        #expect(users.first?["id"] as? String == "nina")
        #expect(users.first?["name"] as? String == "Nina Park")
        #expect(users.first?["role"] as? String == "clinician")
        #expect(users.first?["patients"] as? [String] == ["ann"])
        #expect(users.first?["timeZone"] is NSNull)

        let linked = try await carebridge(
            ["hub", "users", "link", "nina", "--sees", "ben", "--sees", "cleo"] + database
        )
        #expect(linked.status == 0 && linked.stdout == "nina now sees ann, ben, cleo.\n", "\(linked)")
        let again = try await carebridge(["hub", "users", "link", "nina", "--sees", "ben"] + database)
        #expect(again.status == 0 && again.stdout == "nina now sees ann, ben, cleo.\n", "linking twice: \(again)")

        // Refusals: a patient no bridge is enrolled for, no --sees, a user that is not there, a patient not
        // linked; each exits 64 and changes nothing.
        for (arguments, message) in [
            (["link", "nina", "--sees", "zoe"], "no bridge is enrolled for zoe"),
            (["link", "nina"], "say which patients with --sees"),
            (["link", "nobody", "--sees", "ann"], "there is no user 'nobody'"),
            (["unlink", "nina", "--sees", "zoe"], "'nina' is not linked to zoe"),
        ] {
            let refused = try await carebridge(["hub", "users"] + arguments + database)
            #expect(refused.status == 64, "\(refused)")
            #expect(refused.stderr.contains(message), "\(arguments): \(refused.stderr)")
        }

        let unlinked = try await carebridge(["hub", "users", "unlink", "nina", "--sees", "ann"] + database)
        #expect(unlinked.status == 0 && unlinked.stdout == "nina now sees ben, cleo.\n", "\(unlinked)")
        let text = try await carebridge(["hub", "users", "list"] + database)
        #expect(text.stdout == "nina  Nina Park  clinician  ben, cleo  hub's zone\n", "\(text)")

        // A session nina has open, then a new password from standard input: the session ends.
        let hub = try HubDatabase(url: postgres.url, passwordFile: passwordFile)
        let token = Data((0..<32).map { UInt8($0) })
        try await hub.withClient(logger: Logger(label: "test")) { client in
            let store = HubStore(client: client, logger: Logger(label: "test"))
            try await store.startSession(
                userID: "nina",
                tokenHash: token,
                csrfToken: "csrf",
                at: Date(),
                expires: Date().addingTimeInterval(3600)
            )
        }
        // The password is no argument: one on the command line is refused before anything changes.
        let inArgv = try await carebridge(["hub", "users", "passwd", "nina", "second-password-of-nina"] + database)
        #expect(inArgv.status == 64, "\(inArgv)")
        let changed = try await carebridge(
            ["hub", "users", "passwd", "nina", "--password-file", "-"] + database,
            stdin: "second-password-of-nina\n"
        )
        #expect(changed.status == 0, "\(changed)")
        #expect(!changed.stdout.contains("second-password") && !changed.stderr.contains("second-password"))
        let nobody = try await carebridge(
            ["hub", "users", "passwd", "nobody", "--password-file", "-"] + database,
            stdin: "second-password-of-nina\n"
        )
        #expect(nobody.status == 64 && nobody.stderr.contains("there is no user 'nobody'"), "\(nobody)")
        try await hub.withClient(logger: Logger(label: "test")) { client in
            let store = HubStore(client: client, logger: Logger(label: "test"))
            let credentials = try #require(try await store.credentials(userID: "nina"))
            #expect(PasswordHasher().verify("second-password-of-nina", hash: credentials.passwordHash))
            #expect(!PasswordHasher().verify("first-password-of-nina", hash: credentials.passwordHash))
            let session = try await store.session(
                tokenHash: token,
                at: Date(),
                extendTo: Date().addingTimeInterval(3600),
                limit: 86400
            )
            #expect(session == nil, "the new password ended nina's session")
        }
    }
}
