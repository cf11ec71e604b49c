import CareHub
import Foundation
import TestSupport
import Testing

extension HubSyncCommandTests {
    /// ``plan`` with the medication's title changed, from `effective` on.
    static func changedPlan(title: String, effective: String) -> String {
        plan.replacingOccurrences(
            of: #""title": "Take medication", "kind": "intervention","#,
            with: #""title": "\#(title)", "kind": "intervention", "effectiveDate": "\#(effective)","#
        )
    }

    @Test(.enabled(if: PostgresServer.testsEnabled, "PostgreSQL is not installed (apt-get install -y postgresql)"))
    func taskVersionsMadeWhileTheHubIsAwayArriveOnceAndInOrder() async throws {
        let (postgres, passwordFile, database) = try await startPostgres()
        let store = directory.appendingPathComponent("home-1.sqlite").path
        let tokenFile = directory.appendingPathComponent("home-1.token").path
        func bridge(_ arguments: [String]) async throws {
            let run = try await carebridge(arguments + ["--store", store])
            #expect(run.status == 0, "\(run)")
        }
        func apply(_ text: String) async throws {
            let file = directory.appendingPathComponent("plan.json").path
            try Data(text.utf8).write(to: URL(fileURLWithPath: file))
            try await bridge(["plan", "apply", file])
        }
        func held() async throws -> [String] {
            try await hubRows(
                postgres: postgres,
                passwordFile: passwordFile,
                """
                SELECT (body->'task'->>'id') || ' v' || (body->>'versionNumber') || ' ' || (body->'task'->>'title')
                FROM hub_task_version ORDER BY arrival
                """
            )
        }

        try await apply(Self.plan)
        try await enrol("home-1", patient: "ann", database: database, tokenFile: tokenFile)
        var hub = try await serveHub(database)
        func push(timeout: Int = 60) async throws -> CarebridgeRun {
            try await syncPush(store, to: hub, tokenFile: tokenFile, timeout: timeout)
        }
        // The plan's two tasks: the stored history, queued when the channel is first enabled.
        let first = try await push()
        #expect(first.status == 0 && first.stdout.contains(#""sent": 2"#), "\(first)")
        #expect(try await held() == ["medication v1 Take medication", "pain v1 Back pain"])

        // The hub is away while the medication changes twice on the bridge; the bridge keeps both versions queued.
        hub.kill9()
        try await apply(Self.changedPlan(title: "Take medication with food", effective: "2026-11-20T00:00:00"))
        try await apply(Self.changedPlan(title: "Take medication after breakfast", effective: "2026-11-24T00:00:00"))
        let away = try await push(timeout: 2)
        #expect(away.status == 75, "\(away)")
        hub = try await serveHub(database)
        let caughtUp = try await push()
        #expect(caughtUp.status == 0 && caughtUp.stdout.contains(#""sent": 2"#), "\(caughtUp)")
        let again = try await push()
        #expect(again.status == 0 && again.stdout.contains(#""sent": 0"#), "nothing twice: \(again)")
        #expect(
            try await held() == [
                "medication v1 Take medication", "pain v1 Back pain", "medication v2 Take medication with food",
                "medication v3 Take medication after breakfast",
            ]
        )
        hub.kill9()
    }
}
