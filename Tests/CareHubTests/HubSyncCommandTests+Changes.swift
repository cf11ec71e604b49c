import CareHub
import Foundation
import TestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension HubSyncCommandTests {
    /// Three bridges (two of ann's, one of ben's) and plans, acknowledgements and a release made on the hub: each
    /// reaches exactly the bridges of its patient, in the hub's order, once, through a lost answer; an acknowledgement
    /// of an alert the bridge withdrew first is refused by the bridge and the withdrawal stands.
    @Test(.enabled(if: PostgresServer.testsEnabled, "PostgreSQL is not installed (apt-get install -y postgresql)"))
    func plansAcknowledgementsAndReleasesComeDownToTheBridgesOfTheirPatientInOrderOnce() async throws {
        let (postgres, passwordFile, database) = try await startPostgres()
        let bridges = ["home-1": "ann", "home-2": "ann", "home-3": "ben"]
        func store(_ bridge: String) -> String { directory.appendingPathComponent("\(bridge).sqlite").path }
        func bridgeRun(_ bridge: String, _ arguments: [String]) async throws -> CarebridgeRun {
            try await carebridge(arguments + ["--store", store(bridge)])
        }
        for (bridge, patient) in bridges.sorted(by: { $0.key < $1.key }) {
            let added = try await bridgeRun(bridge, ["patients", "add", patient, "--name", patient.capitalized])
            #expect(added.status == 0, "\(added)")
            try await enrol(
                bridge,
                patient: patient,
                database: database,
                tokenFile: directory.appendingPathComponent("\(bridge).token").path
            )
        }
        let hub = try await serveHub(database)
        func push(_ bridge: String) async throws -> [String: Any] {
            let run = try await bridgeRun(
                bridge,
                [
                    "sync", "push", "--hub", hub.url, "--token-file",
                    directory.appendingPathComponent("\(bridge).token").path, "--timeout", "60", "--json",
                ]
            )
            #expect(run.status == 0, "\(run)")
            return try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        }
        func tasks(_ bridge: String) async throws -> [String] {
            let shown = try await bridgeRun(bridge, ["plan", "show", "--json", "--patient", bridges[bridge]!])
            let plan = try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [String: Any]
            return (plan?["tasks"] as? [[String: Any]] ?? []).map { "\($0["id"] ?? "?"): \($0["title"] ?? "?")" }
        }

        // Two versions of ann's plan on the hub; a file for another patient and a malformed one are refused there.
        let first = directory.appendingPathComponent("plan-1.json").path
        try Data(Self.plan.utf8).write(to: URL(fileURLWithPath: first))
        let second = directory.appendingPathComponent("plan-2.json").path
        try Data(Self.plan.replacingOccurrences(of: "Back pain", with: "Back pain today").utf8).write(
            to: URL(fileURLWithPath: second)
        )
        for file in [first, second] {
            let put = try await carebridge(
                ["hub", "plan", "apply", "--patient", "ann", file, "--by", "Dr Lee"] + database
            )
            #expect(put.status == 0 && put.stdout.contains("for home-1, home-2"), "\(put)")
        }
        let foreign = try await carebridge(["hub", "plan", "apply", "--patient", "ben", first] + database)
        #expect(foreign.status == 65 && foreign.stderr.contains("is for patient 'ann', not 'ben'"), "\(foreign)")
        let malformed = directory.appendingPathComponent("bad.json").path
        try Data(#"{"tasks": [{"id": "x"}]}"#.utf8).write(to: URL(fileURLWithPath: malformed))
        let bad = try await carebridge(["hub", "plan", "apply", "--patient", "ben", malformed] + database)
        #expect(bad.status == 65 && bad.stderr.contains("nothing put on the hub"), "\(bad)")

        // ann's bridges apply both versions in order; ben's bridge gets nothing. The answer of home-1 is lost:
        // the repeat applies nothing twice.
        let before = try copyStore(store("home-1"), to: "home-1-before")
        #expect(try await push("home-1")["changesApplied"] as? Int == 2)
        try restoreStore(before, to: store("home-1"))
        #expect(try await push("home-1")["changesApplied"] as? Int == 2)
        #expect(try await push("home-1")["changesApplied"] as? Int == 0, "nothing comes down twice")
        #expect(try await push("home-2")["changesApplied"] as? Int == 2)
        #expect(try await push("home-3")["changesApplied"] as? Int == 0)
        for bridge in ["home-1", "home-2"] {
            #expect(try await tasks(bridge) == ["medication: Take medication", "pain: Back pain today"], "\(bridge)")
        }
        #expect(try await tasks("home-3").isEmpty)

        // A pain of 8 on each of ann's bridges raises an alert on each; the hub hears of both.
        for bridge in ["home-1", "home-2"] {
            let done = try await bridgeRun(bridge, ["complete", "pain", "--at", "2026-11-10T09:00", "--value", "8"])
            #expect(done.status == 0, "\(done)")
            _ = try await push(bridge)
        }
        func alert(_ bridge: String) async throws -> [String: Any] {
            let listed = try await bridgeRun(bridge, ["alerts", "--all", "--json", "--days", "0"])
            let alerts = try #require(
                try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]]
            )
            return try #require(alerts.first, "\(bridge) has its alert: \(listed)")
        }
        let id1 = try #require(try await alert("home-1")["id"] as? Int)
        let id2 = try #require(try await alert("home-2")["id"] as? Int)

        // The nurse acknowledges both at the hub; home-2 withdraws its alert (the answer corrected to 3) first.
        for (bridge, id) in [("home-1", id1), ("home-2", id2)] {
            let ack = try await carebridge(
                ["hub", "alerts", "acknowledge", "--bridge", bridge, "\(id)", "--by", "Nurse Kim"] + database
            )
            #expect(ack.status == 0, "\(ack)")
        }
        let corrected = try await bridgeRun("home-2", ["complete", "pain", "--at", "2026-11-10T09:00", "--value", "3"])
        #expect(corrected.status == 0, "\(corrected)")
        let acknowledged = try await push("home-1")
        #expect(acknowledged["changesApplied"] as? Int == 1, "\(acknowledged)")
        #expect(try await alert("home-1")["acknowledgedBy"] as? String == "Nurse Kim")
        let withdrawn = try await push("home-2")
        #expect(withdrawn["changesRefused"] as? Int == 1, "\(withdrawn)")
        let kept = try await alert("home-2")
        #expect(kept["state"] as? String == "withdrawn" && kept["acknowledgedAt"] is NSNull, "\(kept)")
        // The hub now knows it is withdrawn, and says so instead of sending another acknowledgement.
        let again = try await carebridge(
            ["hub", "alerts", "acknowledge", "--bridge", "home-2", "\(id2)", "--by", "Nurse Kim"] + database
        )
        #expect(again.status == 64 && again.stderr.contains("was withdrawn by the bridge"), "\(again)")

        // A release of a reading home-3 never sent in quarantine: the hub refuses it at once and says so
        // (HubSyncCommandTests+Quarantine.swift has the decisions that come down).
        let release = try await carebridge(
            [
                "hub", "samples", "release", "--bridge", "home-3", "--patient", "ben", UUID().uuidString, "--reason",
                "checked by phone", "--by", "Nurse Kim",
            ] + database
        )
        #expect(release.status == 64 && release.stderr.contains("has sent no quarantined reading"), "\(release)")
        #expect(try await push("home-3")["changesRefused"] as? Int == 0)

        // The hub's record: each bridge dealt with everything, the refusals with the bridge's reasons; the
        // acknowledgement came back up as home-1's change.
        let status = try await carebridge(["hub", "status", "--json"] + database)
        let list = try #require(try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [[String: Any]])
        #expect(list.map { $0["changesWaiting"] as? Int } == [0, 0, 0], "\(status.stdout)")
        #expect(list.map { $0["changesRefused"] as? Int } == [0, 1, 0], "\(status.stdout)")
        let reasons = try await hubRows(
            postgres: postgres,
            passwordFile: passwordFile,
            "SELECT kind || ': ' || refused FROM hub_change_result WHERE refused IS NOT NULL ORDER BY change_sequence"
        )
        #expect(reasons.count == 1 && reasons[0].contains("the withdrawal stands"), "\(reasons)")
        let changes = try await hubRows(
            postgres: postgres,
            passwordFile: passwordFile,
            """
            SELECT b.name || ' ' || (a.body->>'change') || ' ' || coalesce(a.body->'alert'->>'acknowledgedBy', '-')
            FROM hub_alert a JOIN hub_bridge b ON b.id = a.bridge_id ORDER BY b.name, a.bridge_sequence
            """
        )
        #expect(
            changes == ["home-1 raised -", "home-1 acknowledged Nurse Kim", "home-2 raised -", "home-2 withdrawn -"],
            "\(changes)"
        )
        // The metrics: answers by route and status, batches, rows and changes sent, each bridge's gauges read from
        // the database at the scrape; an unknown path is counted as `other`.
        _ = try await URLSession.shared.data(from: try #require(URL(string: "\(hub.url)/no-such-page")))
        let (body, answer) = try await URLSession.shared.data(from: try #require(URL(string: "\(hub.url)/metrics")))
        #expect((answer as? HTTPURLResponse)?.statusCode == 200)
        var metrics: [String: Double] = [:]
        for line in String(decoding: body, as: UTF8.self).split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " ") else { continue }
            metrics[String(line[..<space])] = Double(line[line.index(after: space)...])
        }
        #expect(
            (metrics[#"carebridge_hub_requests_total{path="/sync/v1/batches",status="200"}"#] ?? 0) >= 10,
            "\(metrics)"
        )
        #expect(metrics[#"carebridge_hub_requests_total{path="other",status="404"}"#] == 1, "\(metrics)")
        #expect((metrics["carebridge_hub_batches_total"] ?? 0) >= 10, "\(metrics)")
        #expect(metrics[#"carebridge_hub_rows_total{kind="alert"}"#] ?? 0 >= 4, "\(metrics)")
        #expect(metrics["carebridge_hub_changes_sent_total"] ?? 0 >= 8, "\(metrics)")
        #expect(metrics["carebridge_hub_postgres_errors_total"] ?? 0 == 0, "\(metrics)")
        for bridge in ["home-1", "home-2", "home-3"] {
            #expect(metrics[#"carebridge_hub_bridge_backlog{bridge="\#(bridge)"}"#] == 0, "\(metrics)")
            #expect(metrics[#"carebridge_hub_bridge_changes_waiting{bridge="\#(bridge)"}"#] == 0, "\(metrics)")
            let contact = metrics[#"carebridge_hub_bridge_last_contact_seconds{bridge="\#(bridge)"}"#] ?? 0
            #expect(abs(contact - Date().timeIntervalSince1970) < 3600, "\(bridge): \(metrics)")
        }

        let stopped = try await hub.stop()
        #expect(stopped.exited && stopped.status == 0, "\(hub.stderr)")
        let logs = hub.stdout + hub.stderr
        #expect(logs.contains("the bridge refused a change") && logs.contains("home-2"), "\(logs)")
        await postgres.stop()
    }
}
