import CarePlan
import CareStore
import Foundation
import HTTPTypes
import TestSupport
import Testing

/// The care app with one protocol for several patients: the same task id in anna's and bob's plans, each
/// patient's Today page showing and recording that patient's own event.
@Suite struct WardPlanScreenTests {
    static let round = """
        {"tasks": [{"id": "ward-round", "title": "Ward round", "kind": "intervention",
                    "schedule": {"timeZone": "Europe/Berlin", "elements": [
                      {"start": "2026-11-01T09:00:00", "interval": {"days": 1}, "duration": 7200}]}}]}
        """

    @Test func eachPatientsTodayShowsAndRecordsTheirOwnTaskOfASharedProtocol() async throws {
        let fixture = try await CareAppFixture()
        let document = try CarePlanDocument.parse(
            Data(Self.round.utf8),
            path: "ward.json",
            bridgeZone: CareAppFixture.zone
        )
        for patient in ["anna", "bob"] {
            try await fixture.store.scoped(to: patient).applyPlan(
                document,
                at: CareAppFixture.start.addingTimeInterval(-86400)
            )
        }
        try await fixture.test { browser in
            try await browser.signIn("nurse")
            let bob = try await browser.get("/patients/bob/today")
            #expect(bob.text.contains("<strong>0 of 4</strong> done"), "\(bob.text)")
            #expect(bob.text.contains("Ward round"))
            let done = try await browser.post(
                "/patients/bob/today/record",
                [
                    "csrf": bob.csrf ?? "", "task": "ward-round@bob", "occurrence": "26", "day": "2026-11-27",
                    "action": "done",
                ]
            )
            #expect(done.status == .seeOther)
            #expect(try await browser.get("/patients/bob/today").text.contains("<strong>1 of 4</strong> done"))
            #expect(try await browser.get("/patients/anna/today").text.contains("<strong>0 of 4</strong> done"))
            // Bob's task cannot be recorded through Anna's page.
            let anna = try await browser.get("/patients/anna/today")
            _ = try await browser.post(
                "/patients/anna/today/record",
                [
                    "csrf": anna.csrf ?? "", "task": "ward-round@bob", "occurrence": "26", "day": "2026-11-27",
                    "action": "undo",
                ]
            )
        }
        let bobs = try await fixture.store.scoped(to: "bob").events(
            matching: EventQuery(from: CareAppFixture.start, to: CareAppFixture.start.addingTimeInterval(1))
        )
        #expect(bobs.filter(\.isCompleted).map(\.taskID) == ["ward-round@bob"])
        let annas = try await fixture.store.scoped(to: "anna").events(
            matching: EventQuery(from: CareAppFixture.start, to: CareAppFixture.start.addingTimeInterval(1))
        )
        #expect(annas.contains { $0.taskID == "ward-round" } && annas.allSatisfy { !$0.isCompleted })
    }
}
