import BridgeCore
import CarePlan
import CareStore
import Foundation
import HTTPTypes
import TestSupport
import Testing

/// The Readings screen: the filter, readings that say what they are (quarantined, LO/HI), typed entry read as
/// `carebridge ingest` reads it, and the care team's release or deletion of a quarantined reading.
@Suite struct ReadingsScreenTests {
    /// Anna's scale (registered to her) weighed 472 kg an hour ago: quarantined by the safety stage.
    static func quarantinedWeight(_ fixture: CareAppFixture, patient: String = "anna") async throws -> UUID {
        let sample = QuantitySample(
            type: .bodyMass,
            value: patient == "anna" ? 472 : 481,
            unit: HealthUnit(rawValue: "kg"),
            start: CareAppFixture.start.addingTimeInterval(-3600),
            source: SampleSource(
                kind: .device,
                decoder: "weight-scale",
                device: DeviceIdentity(address: "C4:00:00:00:00:0\(patient == "anna" ? 1 : 2)", name: "Scale")
            ),
            rawPayload: [1, 2, 3],
            quarantineReason: "implausible body mass 472 kg: outside 0.2–650 kg"
        )
        try await fixture.store.scoped(to: patient).recordSample(sample)
        return sample.id
    }

    /// A glucose meter's LO (below its limit of 20 mg/dL) for Anna, half an hour ago.
    static func lowGlucose(_ fixture: CareAppFixture) async throws {
        try await fixture.store.scoped(to: "anna").recordSample(
            QuantitySample(
                type: .bloodGlucose,
                value: 20,
                unit: HealthUnit(rawValue: "mg/dL"),
                start: CareAppFixture.start.addingTimeInterval(-1800),
                source: SampleSource(kind: .device, device: DeviceIdentity(address: "C4:00:00:00:00:09")),
                rawPayload: [9],
                comparator: .lessThan
            )
        )
    }

    @Test func readingsSayWhenTheyAreQuarantinedOrOutOfRangeAndTheFilterNarrowsThem() async throws {
        let fixture = try await CareAppFixture()
        _ = try await Self.quarantinedWeight(fixture)
        try await Self.lowGlucose(fixture)
        try await fixture.test { browser in
            try await browser.signIn("anna")
            let page = try await browser.get("/patients/anna/readings")
            #expect(page.status == .ok)
            #expect(page.text.contains("[472 kg] quarantined"), "\(page.text)")
            #expect(page.text.contains("Quarantined, not used: implausible body mass"))
            #expect(!page.text.contains(">472 kg<"), "never a plain number")
            #expect(page.text.contains("&lt; 20 mg/dL (LO)"))
            #expect(page.text.contains("Outside the device&#39;s measuring range (LO)"))
            #expect(!page.text.contains("Release or delete"), "a patient does not review readings")
            let glucose = try await browser.get("/patients/anna/readings?type=bloodGlucose")
            #expect(glucose.text.contains("20 mg/dL") && !glucose.text.contains("472 kg"))
            let earlier = try await browser.get("/patients/anna/readings?from=2026-11-01&to=2026-11-20")
            #expect(earlier.text.contains("No readings in this period."))
            let quarantined = try await browser.get("/patients/anna/readings?show=quarantined")
            #expect(quarantined.text.contains("472 kg") && !quarantined.text.contains("20 mg/dL"))
            #expect(try await browser.get("/patients/anna/readings?type=shoeSize").status == .badRequest)
        }
    }

    @Test func aTypedReadingIsReadAsIngestReadsItAndNamesWhoTypedIt() async throws {
        let fixture = try await CareAppFixture()
        try await fixture.test { browser in
            try await browser.signIn("anna")
            let page = try await browser.get("/patients/anna/readings")
            let csrf = try #require(page.csrf)
            let saved = try await browser.post(
                "/patients/anna/readings",
                ["csrf": csrf, "type": "bloodPressure", "reading": "128/82 mmHg", "at": "2026-11-27T09:00"]
            )
            #expect(saved.status == .seeOther)
            let shown = try await browser.get(try #require(saved.location).components(separatedBy: "#")[0])
            #expect(shown.text.contains("Blood pressure</span> <span class=\"value\">128/82 mmHg"), "\(shown.text)")
            #expect(shown.text.contains("typed in by anna"))
            let refused = try await browser.post(
                "/patients/anna/readings",
                ["csrf": csrf, "type": "bodyMass", "reading": "72 kg kg", "at": "2026-11-27T09:00"]
            )
            #expect(refused.status == .unprocessableContent)
            #expect(refused.text.contains("Cannot read &#39;72 kg kg&#39; as body mass"), "\(refused.text)")
            #expect(refused.text.contains("value=\"72 kg kg\""), "the form keeps what was typed")
            let future = try await browser.post(
                "/patients/anna/readings",
                ["csrf": csrf, "type": "bodyMass", "reading": "72.4 kg", "at": "2026-11-27T18:00"]
            )
            #expect(future.status == .unprocessableContent)
            #expect(future.text.contains("That time is in the future"))
        }
        let samples = try await fixture.store.scoped(to: "anna").samples(matching: SampleQuery())
        #expect(
            samples.map(\.sample.type).sorted { $0.rawValue < $1.rawValue } == [
                .bloodPressureDiastolic, .bloodPressureSystolic,
            ]
        )
        #expect(samples.allSatisfy { $0.sample.source.kind == .manual && $0.sample.metadata["enteredBy"] == "anna" })
        #expect(samples.first { $0.sample.type == .bloodPressureSystolic }?.sample.value == 128)
        await #expect(try fixture.store.scoped(to: "bob").samples(matching: SampleQuery()).isEmpty)
    }

    @Test func theCareTeamReleasesAQuarantinedReadingWithAReasonAndTheReviewNamesWho() async throws {
        let fixture = try await CareAppFixture()
        let id = try await Self.quarantinedWeight(fixture)
        let path = "/patients/anna/readings/\(id.uuidString.lowercased())"
        try await fixture.test { browser in
            try await browser.signIn("anna")
            let own = try await browser.get("/patients/anna/readings")
            #expect(try await browser.get(path).status == .forbidden)
            let refused = try await browser.post(path + "/release", ["csrf": own.csrf ?? "", "reason": "fine"])
            #expect(refused.status == .forbidden)
        }
        #expect(try await fixture.store.sample(id: id)?.sample.isQuarantined == true)
        try await fixture.test { browser in
            try await browser.signIn("nurse")
            let list = try await browser.get("/patients/anna/readings")
            #expect(list.text.contains("href=\"\(path)\""))
            let review = try await browser.get(path)
            #expect(review.status == .ok)
            #expect(review.text.contains("Deleting cannot be undone"))
            let csrf = try #require(review.csrf)
            #expect(try await browser.post(path + "/release", ["csrf": csrf]).status == .unprocessableContent)
            let released = try await browser.post(
                path + "/release",
                ["csrf": csrf, "reason": "weighed with a suitcase"]
            )
            #expect(released.status == .seeOther)
            let after = try await browser.get(try #require(released.location))
            #expect(after.text.contains("Released from quarantine by nurse: weighed with a suitcase"), "\(after.text)")
            #expect(try await browser.get(path).status == .notFound, "no longer in quarantine")
        }
        #expect(try await fixture.store.sample(id: id)?.sample.isQuarantined == false)
        let reviews = try await fixture.store.sampleReviews(of: [id])
        #expect(reviews[id]?.map(\.author) == ["nurse"])
        #expect(reviews[id]?.map(\.action) == [.release])
    }

    @Test func deletingAQuarantinedReadingNeedsAReasonAndAConfirmation() async throws {
        let fixture = try await CareAppFixture()
        let id = try await Self.quarantinedWeight(fixture)
        let bobs = try await Self.quarantinedWeight(fixture, patient: "bob")
        let path = "/patients/anna/readings/\(id.uuidString.lowercased())"
        try await fixture.test { browser in
            try await browser.signIn("nurse")
            let review = try await browser.get(path)
            let csrf = try #require(review.csrf)
            let unconfirmed = try await browser.post(
                path + "/delete",
                ["csrf": csrf, "reason": "a child on the scale"]
            )
            #expect(unconfirmed.status == .unprocessableContent)
            #expect(unconfirmed.text.contains("Yes, delete this reading for good"))
            #expect(
                try await fixture.store.sample(id: id)?.deletedDate == nil,
                "nothing deleted without the confirmation"
            )
            // Bob's reading cannot be reached through Anna's page.
            let crossed = try await browser.post(
                "/patients/anna/readings/\(bobs.uuidString.lowercased())/delete",
                ["csrf": csrf, "reason": "x", "confirm": "yes"]
            )
            #expect(crossed.status == .notFound)
            let deleted = try await browser.post(
                path + "/delete",
                ["csrf": csrf, "reason": "a child on the scale", "confirm": "yes"]
            )
            #expect(deleted.status == .seeOther)
            #expect(!(try await browser.get("/patients/anna/readings").text.contains("472 kg")))
        }
        #expect(try await fixture.store.sample(id: id)?.deletedDate != nil)
        #expect(try await fixture.store.sample(id: bobs)?.deletedDate == nil)
        let review = try #require(try await fixture.store.sampleReviews(of: [id])[id]?.first)
        #expect(review.action == .delete && review.author == "nurse" && review.reason == "a child on the scale")
    }

    @Test func theReadingFormsRefuseAMissingCSRFTokenAndChangeNothing() async throws {
        let fixture = try await CareAppFixture()
        let id = try await Self.quarantinedWeight(fixture)
        let path = "/patients/anna/readings/\(id.uuidString.lowercased())"
        try await fixture.test { browser in
            try await browser.signIn("nurse")
            let entry = ["type": "bodyMass", "reading": "72.4 kg", "at": "2026-11-27T09:00"]
            #expect(try await browser.post("/patients/anna/readings", entry).status == .forbidden)
            let decision = ["reason": "checked", "confirm": "yes", "csrf": "not-the-token"]
            #expect(try await browser.post(path + "/release", decision).status == .forbidden)
            #expect(try await browser.post(path + "/delete", decision).status == .forbidden)
        }
        let stored = try #require(try await fixture.store.sample(id: id))
        #expect(stored.deletedDate == nil && stored.sample.isQuarantined)
        await #expect(try fixture.store.scoped(to: "anna").samples(matching: SampleQuery()).isEmpty)
    }
}
