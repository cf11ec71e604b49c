import BridgeCore
import CareStore
import Foundation
import TestSupport
import Testing

/// The per-device session variables (`v7-session-variables`): a glucose meter's cursor, a scale's consent.
@Suite struct SessionVariableTests {
    @Test func variablesRoundTripPerDeviceAndProfileAndSurviveReopening() async throws {
        let fixture = try StoreFixture()
        let meter = "C4:7C:8D:6A:3E:10"
        #expect(try await fixture.store.sessionVariables(device: meter, profile: "glucose-meter").isEmpty)
        try await fixture.store.saveSessionVariables(
            ["lastSequence": .integer(42), "consentCode": .bytes([0x34, 0x12])],
            device: meter,
            profile: "glucose-meter"
        )
        try await fixture.store.saveSessionVariables(
            ["lastSequence": .integer(7)],
            device: "AA:BB:CC:DD:EE:FF",
            profile: "glucose-meter"
        )
        let reopened = try CareStore(
            path: fixture.directory.path("care/store.sqlite"),
            bridgeZone: StoreFixture.berlin,
            logger: .quiet
        )
        #expect(
            try await reopened.sessionVariables(device: meter, profile: "glucose-meter")
                == ["lastSequence": .integer(42), "consentCode": .bytes([0x34, 0x12])]
        )
        #expect(try await reopened.sessionVariables(device: meter, profile: "other").isEmpty)
        #expect(try await reopened.allSessionVariables().count == 3)
    }

    @Test func nilRemovesAndAValueReplaces() async throws {
        let fixture = try StoreFixture()
        try await fixture.store.saveSessionVariables(["a": .integer(1), "b": .integer(2)], device: "d", profile: "p")
        try await fixture.store.saveSessionVariables(["a": nil, "b": .bytes([9])], device: "d", profile: "p")
        #expect(try await fixture.store.sessionVariables(device: "d", profile: "p") == ["b": .bytes([9])])
    }
}
