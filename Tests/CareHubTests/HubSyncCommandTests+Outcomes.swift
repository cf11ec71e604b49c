import CareHub
import Foundation
import Logging
import PostgresNIO
import TestSupport
import Testing

extension HubSyncCommandTests {
    /// A plan for ann: a pain score whose 7 or more raises a critical alert, and a morning medication.
    static let plan = """
        {"patient": {"id": "ann", "name": "Ann"},
         "tasks": [
          {"id": "pain", "title": "Back pain", "kind": "assessment",
           "schedule": {"timeZone": "Europe/Berlin",
                        "elements": [{"start": "2026-11-01T00:00:00", "interval": {"days": 1}, "duration": "allDay"}]},
           "answer": {"type": "scale", "min": 0, "max": 10},
           "alerts": [{"id": "high", "severity": "critical", "when": {">=": 7}, "message": "Pain {value} on {day}"}]},
          {"id": "medication", "title": "Take medication", "kind": "intervention",
           "schedule": {"timeZone": "Europe/Berlin",
                        "elements": [{"start": "2026-11-01T08:00:00", "interval": {"days": 1}, "duration": 3600}]}}
        ]}
        """

    @Test(.enabled(if: PostgresServer.testsEnabled, "PostgreSQL is not installed (apt-get install -y postgresql)"))
    func outcomesUndosAndAlertChangesReachTheHubOnceThroughALostAnswerAndARestart() async throws {
        let (postgres, passwordFile, database) = try await startPostgres()
        let store = directory.appendingPathComponent("home-1.sqlite").path
        let tokenFile = directory.appendingPathComponent("home-1.token").path
        func bridge(_ arguments: [String]) async throws {
            let run = try await carebridge(arguments + ["--store", store])
            #expect(run.status == 0, "\(run)")
        }

        let planFile = directory.appendingPathComponent("plan.json").path
        try Data(Self.plan.utf8).write(to: URL(fileURLWithPath: planFile))
        try await bridge(["plan", "apply", planFile])
        try await bridge(["complete", "pain", "--at", "2026-11-10T09:00", "--value", "8"])
        try await bridge(["complete", "medication", "--at", "2026-11-10T08:30"])
        try await enrol("home-1", patient: "ann", database: database, tokenFile: tokenFile)

        var hub = try await serveHub(database)
        func push(timeout: Int = 60) async throws -> CarebridgeRun {
            try await syncPush(store, to: hub, tokenFile: tokenFile, timeout: timeout)
        }
        // The plan's two task versions, two outcomes and the raised alert (the stored history, queued when the
        // channel is first enabled).
        let first = try await push()
        #expect(first.status == 0 && first.stdout.contains(#""sent": 5"#), "\(first)")

        // The medication undone and the alert acknowledged on the bridge; the hub's answer is lost.
        try await bridge(["uncomplete", "medication", "--at", "2026-11-10T08:30"])
        let alerts = try await carebridge(["alerts", "--json", "--days", "0", "--store", store])
        let alertIDs = try #require(
            try JSONSerialization.jsonObject(with: Data(alerts.stdout.utf8)) as? [[String: Any]]
        ).compactMap { $0["id"] as? Int }
        #expect(alertIDs.count == 1, "\(alerts)")
        try await bridge(["alerts", "ack", "\(alertIDs.first ?? 0)", "--by", "Nurse Kim"])
        let before = try copyStore(store, to: "home-1-before-push")
        let undone = try await push()
        #expect(undone.status == 0 && undone.stdout.contains(#""sent": 2"#), "\(undone)")
        try restoreStore(before, to: store)
        let resent = try await push()
        #expect(resent.status == 0 && resent.stdout.contains(#""sent": 2"#), "sent again, stored once: \(resent)")

        // The hub killed: the medication done after all waits on the bridge and arrives after the restart.
        hub.kill9()
        try await bridge(["complete", "medication", "--at", "2026-11-10T08:45"])
        let unreachable = try await push(timeout: 2)
        #expect(unreachable.status == 75, "\(unreachable)")
        hub = try await serveHub(database)
        let caughtUp = try await push()
        #expect(caughtUp.status == 0 && caughtUp.stdout.contains(#""sent": 1"#), "\(caughtUp)")

        let held = try await hubRows(
            postgres: postgres,
            passwordFile: passwordFile,
            """
            SELECT (body->>'task') || ' ' || (body->>'state') FROM hub_outcome ORDER BY body->>'task'
            """
        )
        #expect(held == ["medication recorded", "pain recorded"])
        let medication = try await hubRows(
            postgres: postgres,
            passwordFile: passwordFile,
            """
            SELECT (body->>'state') || coalesce(' by ' || (body->'outcome'->>'author'), '')
                || coalesce(' ' || (body->>'undoneAt'), '')
            FROM hub_outcome_change WHERE body->>'task' = 'medication' ORDER BY bridge_sequence
            """
        )
        #expect(
            medication.map { $0.split(separator: " ").first.map(String.init) } == ["recorded", "undone", "recorded"]
        )
        #expect(medication[1].contains("2026-"), "the undo says when: \(medication)")
        let alertChanges = try await hubRows(
            postgres: postgres,
            passwordFile: passwordFile,
            """
            SELECT (body->>'change') || ' ' || (body->'alert'->>'rule') || ' ' || patient_id FROM hub_alert
            ORDER BY bridge_sequence
            """
        )
        #expect(alertChanges == ["raised high ann", "acknowledged high ann"], "each change once")

        let status = try await carebridge(["hub", "status", "--json"] + database)
        let list = try #require(try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [[String: Any]])
        #expect(list.first?["outcomes"] as? Int == 2 && list.first?["alerts"] as? Int == 2, "\(status.stdout)")
        #expect(list.first?["backlog"] as? Int == 0, "nothing left on the bridge: \(status.stdout)")
        let stopped = try await hub.stop()
        #expect(stopped.exited && stopped.status == 0, "\(hub.stderr)")
        await postgres.stop()
    }

    /// The first column of every row `sql` selects from the hub's database, as text.
    func hubRows(postgres: PostgresServer, passwordFile: String, _ sql: String) async throws -> [String] {
        let database = try HubDatabase(url: postgres.url, passwordFile: passwordFile)
        return try await database.withClient(logger: Logger(label: "test")) { client in
            var rows: [String] = []
            for try await text in try await client.query(PostgresQuery(unsafeSQL: sql)).decode(String.self) {
                rows.append(text)
            }
            return rows
        }
    }
}
