import BridgeCore
import CarePlan
import CareStore
import CareWeb
import Foundation
import HTTPTypes
import TestSupport
import Testing

/// The Devices screen: a patient's devices with their last reading, and the unassigned inbox for the care team
/// and caregivers, filed under a patient the user sees.
@Suite struct DevicesScreenTests {
    static let scale = DeviceIdentity(address: "C4:00:00:00:00:01", name: "Family scale")

    /// A weigh-in from the scale at `minutesAgo` before the fixture's start.
    static func weighIn(_ kilograms: Double, minutesAgo: Double) -> QuantitySample {
        QuantitySample(
            type: .bodyMass,
            value: kilograms,
            unit: HealthUnit(rawValue: "kg"),
            start: CareAppFixture.start.addingTimeInterval(-minutesAgo * 60),
            source: SampleSource(kind: .device, decoder: "weight-scale", device: scale),
            rawPayload: [UInt8(kilograms)],
            metadata: ["userID": "2"]
        )
    }

    /// The fixture with Carol, Anna's daughter (a caregiver linked to Anna only).
    static func fixtureWithCaregiver() async throws -> CareAppFixture {
        let fixture = try await CareAppFixture()
        try await fixture.store.addUser(
            CareUser(id: "carol", displayName: "Carol", role: .caregiver, patientIDs: ["anna"]),
            passwordHash: PasswordHasher(cost: 4).hash(CareAppFixture.password)
        )
        return fixture
    }

    @Test func aPatientsDevicesShowTheirLastReadingAndSlotButNotAnotherPatientsReadings() async throws {
        let fixture = try await CareAppFixture()
        try await fixture.store.assignDevice(Self.scale.address!, slot: 2, to: "anna")
        try await fixture.store.recordSample(Self.weighIn(71.2, minutesAgo: 90))
        try await fixture.test { browser in
            try await browser.signIn("anna")
            let page = try await browser.get("/patients/anna/devices")
            #expect(page.status == .ok)
            #expect(page.text.contains("Family scale"))
            #expect(page.text.contains("Body mass 71.2 kg"), "\(page.text)")
            #expect(page.text.contains("<dt>User slot</dt><dd>2</dd>"))
            #expect(!page.text.contains("inbox-heading"), "a patient does not see the inbox")
        }
        try await fixture.test { browser in
            try await browser.signIn("bob")
            let page = try await browser.get("/patients/bob/devices")
            #expect(!page.text.contains("Family scale") && !page.text.contains("71.2"))
        }
    }

    @Test func aDevicesBatteryShowsItsNewestLevelAndAnOlderReadingNeverReplacesIt() async throws {
        let fixture = try await CareAppFixture()
        try await fixture.store.assignDevice(Self.scale.address!, slot: 2, to: "anna")
        try await fixture.store.recordSample(Self.weighIn(71.2, minutesAgo: 90))
        try await fixture.store.recordBatteries([
            BatteryReading(device: Self.scale, level: 8, at: CareAppFixture.start.addingTimeInterval(-3600))
        ])
        // A replay of an older recording brings an older, fuller battery: kept out.
        try await fixture.store.recordBatteries([
            BatteryReading(device: Self.scale, level: 95, at: CareAppFixture.start.addingTimeInterval(-86400))
        ])
        try await fixture.test { browser in
            try await browser.signIn("anna")
            let page = try await browser.get("/patients/anna/devices")
            #expect(
                page.text.contains("<dt>Battery</dt><dd>8 %, replace soon, read Fri 27 Nov 2026 08:30</dd>"),
                "\(page.text)"
            )
        }
    }

    @Test func aCaregiverFilesAnInboxReadingUnderAPatientTheySeeAndTheReviewNamesWho() async throws {
        let fixture = try await Self.fixtureWithCaregiver()
        let sample = Self.weighIn(72.4, minutesAgo: 30)
        let report = try await fixture.store.recordSample(sample)
        #expect(report.unassigned == 1, "an unregistered device in a store of two patients: the inbox")
        let path = "/inbox/\(sample.id.uuidString.lowercased())/assign"
        try await fixture.test { browser in
            try await browser.signIn("anna")
            let own = try await browser.get("/patients/anna/devices")
            let refused = try await browser.post("/patients/anna" + path, ["csrf": own.csrf ?? ""])
            #expect(refused.status == .forbidden, "a patient does not file inbox readings")
        }
        try await fixture.test { browser in
            try await browser.signIn("carol")
            let page = try await browser.get("/patients/anna/devices")
            #expect(page.text.contains("Readings nobody is filed for"))
            #expect(page.text.contains("This was Anna Weber") && !page.text.contains("This was Bob Weber"))
            let csrf = try #require(page.csrf)
            #expect(try await browser.post("/patients/bob" + path, ["csrf": csrf]).status == .forbidden)
            #expect(try await browser.post("/patients/anna" + path, [:]).status == .forbidden, "no CSRF token")
            let filed = try await browser.post("/patients/anna" + path, ["csrf": csrf])
            #expect(filed.status == .seeOther)
            #expect(try await browser.get("/patients/anna/devices").text.contains("The inbox is empty."))
            #expect(try await browser.post("/patients/anna" + path, ["csrf": csrf]).status == .notFound)
        }
        #expect(try await fixture.store.sample(id: sample.id)?.patientID == "anna")
        let review = try #require(try await fixture.store.sampleReviews(of: [sample.id])[sample.id]?.first)
        #expect(review.action == .assign && review.author == "carol" && review.reason == "anna")
        // The weigh-in completed Anna's event.
        let events = try await fixture.store.scoped(to: "anna").events(
            matching: EventQuery(from: CareAppFixture.start.addingTimeInterval(-7200), to: CareAppFixture.start)
        )
        #expect(events.first { $0.taskID == "weigh-anna" }?.outcome?.values.first?.value == 72.4)
    }

    @Test func theCareTeamSeesTheInboxByMeasurementWithEveryPatientItIsLinkedTo() async throws {
        let fixture = try await CareAppFixture()
        let weight = Self.weighIn(80.1, minutesAgo: 20)
        let bmi = QuantitySample(
            type: .bodyMassIndex,
            value: 26.2,
            unit: HealthUnit(rawValue: "kg/m2"),
            start: weight.start,
            source: weight.source,
            rawPayload: [80],
            metadata: weight.metadata
        )
        try await fixture.store.recordSamples([weight, bmi])
        try await fixture.test { browser in
            try await browser.signIn("nurse")
            let page = try await browser.get("/patients/bob/devices")
            #expect(page.text.contains("This was Anna Weber") && page.text.contains("This was Bob Weber"))
            // One weigh-in, one entry: its weight and BMI together (filing one files both).
            #expect(page.text.components(separatedBy: "class=\"inbox-reading\"").count == 2, "\(page.text)")
            #expect(page.text.contains("Body mass 80.1 kg") && page.text.contains("Body mass index 26.2 kg/m²"))
        }
    }
}
