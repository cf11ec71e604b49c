import CareStore
import CareWeb
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import TestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A care app whose store has no users: the one-time setup link creates the admin account, then stops working.
@Suite struct SetupTests {
    /// Runs `body` against an app over a store without users, with a setup gate for `token`.
    static func withSetup(
        token: String,
        _ body: @escaping @Sendable (Browser, CareStore) async throws -> Void
    ) async throws {
        let scratch = try ScratchDirectory("carebridge-setup-")
        let store = try CareStore(
            path: scratch.path("store.sqlite"),
            bridgeZone: CareAppFixture.zone,
            logger: Logger(label: "test")
        )
        let app = try CareWebApp(
            store: store,
            configuration: WebConfiguration(passwordCost: 4),
            logger: Logger(label: "test"),
            setup: SetupGate(tokenHash: SessionToken.hash(token))
        )
        try await Application(router: app.router()).test(.router) { client in
            try await body(Browser(client: client), store)
        }
    }

    @Test func theSetupLinkCreatesTheAdminAccountOnceAndThenStopsWorking() async throws {
        let token = SessionToken.make()
        try await Self.withSetup(token: token) { browser, store in
            #expect(try await browser.get("/setup").status == .forbidden)
            #expect(try await browser.get("/setup?token=not-it").status == .forbidden)
            let form = try await browser.get("/setup?token=\(token)")
            #expect(form.status == .ok)
            #expect(form.text.contains("Create the admin account"))
            let fields = ["token": token, "username": "sam", "name": "Sam Admin", "password": "a long password"]
            var differ = fields
            differ["again"] = "another password"
            let refused = try await browser.post("/setup", differ)
            #expect(refused.status == .unprocessableContent && refused.text.contains("The two passwords differ."))
            var forged = fields
            forged["token"] = "forged"
            forged["again"] = "a long password"
            #expect(try await browser.post("/setup", forged).status == .forbidden)
            #expect(try await store.hasUsers() == false, "refused forms created nobody")
            var right = fields
            right["again"] = "a long password"
            let created = try await browser.post("/setup", right)
            #expect(created.status == .seeOther && created.location == "/login")
            let users = try await store.users()
            #expect(users.map(\.id) == ["sam"] && users.first?.role == .admin)
            // The link is spent: neither the page nor the form works again.
            #expect(try await browser.get("/setup?token=\(token)").status == .notFound)
            right["username"] = "mallory"
            #expect(try await browser.post("/setup", right).status == .notFound)
            #expect(try await store.users().map(\.id) == ["sam"])
            #expect(try await browser.signIn("sam", password: "a long password").status == .seeOther)
        }
    }

    @Test func serveOnAStoreWithoutUsersPrintsTheLinkOnceAndLogsNoToken() async throws {
        let scratch = try ScratchDirectory("carebridge-setup-serve-")
        let path = scratch.path("store.sqlite")
        _ = try CareStore(path: path, bridgeZone: CareAppFixture.zone, logger: Logger(label: "test"))
        let server = try await CareAppServer.start(
            store: path,
            directory: scratch.url,
            environment: ["TZ": "Europe/Berlin", "CAREBRIDGE_LOG_LEVEL": "trace"]
        )
        let stdout = server.stdout
        let prefix = "no users yet: open \(server.url)/setup?token="
        let line = try #require(stdout.split(separator: "\n").first { $0.hasPrefix(prefix) }, "\(stdout)")
        let token = String(line.dropFirst(prefix.count).prefix { $0 != " " })
        // A visit with the link (logged at trace level) does not put the token in the log either.
        let (_, response) = try await URLSession.shared.data(from: URL(string: "\(server.url)/setup?token=\(token)")!)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        let stopped = try await server.stop()
        #expect(stopped.exited && stopped.status == 0, "\(server.stderr)")
        #expect(token.count == 43, "\(line)")
        #expect(stdout.components(separatedBy: token).count == 2, "printed once")
        #expect(!server.stderr.contains(token), "not in the log")
        let raw = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(raw.range(of: Data(token.utf8)) == nil, "not in the store")
    }
}
