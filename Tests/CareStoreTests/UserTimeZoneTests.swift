import Foundation
import GRDB
import Logging
import Testing

@testable import CareStore

/// Each care app user's time zone (`"v18-user-time-zone"`): users from before the migration keep the bridge's
/// zone, a zone set is kept by its IANA name, and a name that is no zone is refused with what was wrong.
@Suite struct UserTimeZoneTests {
    @Test func aUserFromBeforeTheMigrationKeepsTheBridgesZoneUntilOneIsSet() async throws {
        let queue = try DatabaseQueue()
        try Schema.migrator.migrate(queue, upTo: AlertDeliveryFailureSchema.migrationName)
        try await queue.write { db in
            try db.execute(
                sql: """
                    INSERT INTO appUser (id, displayName, role, passwordHash, createdDate, passwordChangedDate)
                    VALUES ('anna', 'Anna Weber', 'patient', 'hash', 0, 0)
                    """
            )
        }
        let store = try CareStore(writer: queue, bridgeZone: StoreFixture.berlin, logger: .quiet)
        #expect(try await store.appliedMigrations().contains(UserTimeZoneSchema.migrationName))
        #expect(try await store.users().map(\.timeZone) == [nil], "nil: the bridge's zone, as before")
        #expect(try await store.credentials(userID: "anna")?.passwordHash == "hash")

        let newYork = try CareUser.zone(named: "America/New_York")
        try await store.setTimeZone(userID: "anna", newYork)
        #expect(try await store.users().first?.timeZone == newYork)
        try await store.setTimeZone(userID: "anna", nil)
        #expect(try await store.users().first?.timeZone == nil)
        await #expect(throws: CareStoreError.self) { try await store.setTimeZone(userID: "nobody", newYork) }
    }

    @Test func aZoneGivenWhenAddingIsKeptAndAForgottenNameFallsBackToTheBridgesZone() async throws {
        let fixture = try StoreFixture()
        let tokyo = try CareUser.zone(named: "Asia/Tokyo")
        try await fixture.store.addUser(
            CareUser(id: "kenji", displayName: "Kenji", role: .admin, patientIDs: [], timeZone: tokyo),
            passwordHash: "hash"
        )
        #expect(try await fixture.store.users().first?.timeZone?.identifier == "Asia/Tokyo")
        // A name the tz database dropped (a store moved to an older system) must not lock the user out.
        try await fixture.store.write { db in
            try db.execute(sql: "UPDATE appUser SET timeZone = 'Atlantis/Capital' WHERE id = 'kenji'")
        }
        #expect(try await fixture.store.users().first?.timeZone == nil)
    }

    @Test(arguments: ["EST", "europe/berlin", "Mars/Base", "", "GMT+2"])
    func aNameThatIsNoIANAZoneIsRefusedSayingWhichAndWhatToUse(_ name: String) {
        #expect {
            try CareUser.zone(named: name)
        } throws: { error in
            let message = (error as? CareStoreError)?.message ?? ""
            return message.contains("unknown time zone '\(name)'") && message.contains("Europe/Berlin")
        }
        #expect(CareUser.zoneNames.contains("UTC") && CareUser.zoneNames.contains("America/New_York"))
    }
}
