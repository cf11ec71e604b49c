import DeviceProfiles
import DeviceSessions
import Testing

/// Each Omron memory-map family states how long its bond lives (`bonding`), and the connection plan carries it to
/// the transport: the classic cuffs and the FE4A WLD1.0 ones pair once, the FE4A WLD3.0 ones every session.
@Suite struct BondingPolicyTests {
    static let catalog = OmronWriteSafetyTests.catalog
    static let everySession: Set<String> = ["omron-hem-7380t1", "omron-hem-7386t1"]

    @Test(
        "every memory-map profile states its bonding policy and the plan carries it",
        arguments: OmronWriteSafetyTests.memoryMapProfiles
    )
    func everyMemoryMapProfileStatesItsBonding(id: String) throws {
        let profile = try #require(Self.catalog.profile(id: id))
        let bonding = try #require(profile.bonding, "\(id) says nothing about its bond")
        #expect(bonding == (Self.everySession.contains(id) ? .everySession : .once), "\(id)")
        #expect(profile.connectionPlan.requiresPairing)
        #expect(profile.connectionPlan.bondRenewal == bonding)
    }

    @Test func aProfileWithoutAPolicyKeepsItsBond() throws {
        let plan = try #require(Self.catalog.profile(id: "glucose-meter")).connectionPlan
        #expect(plan.bondRenewal == .once)
    }

    static func json(bonding: String, pairing: Bool) -> String {
        """
        {"id": "x", "name": "x", "match": {"name": "X*"}, "link": "gatt",
         "characteristics": [{"uuid": "2A35", "use": "indicate", "decoder": "blood-pressure-measurement"}],
         "quirks": {"pairingRequired": \(pairing)}, "bonding": "\(bonding)"}
        """
    }

    @Test func anUnknownPolicyOrOneWithoutPairingIsAProfileErrorAtTheField() throws {
        #expect(try DeviceProfile(json: Self.json(bonding: "everySession", pairing: true)).bonding == .everySession)
        let unknown = #expect(throws: DeviceProfileError.self) {
            try DeviceProfile(json: Self.json(bonding: "daily", pairing: true))
        }
        #expect(unknown?.field == "bonding")
        #expect(unknown?.message.contains("once, everySession") == true)
        let unpaired = #expect(throws: DeviceProfileError.self) {
            try DeviceProfile(json: Self.json(bonding: "once", pairing: false))
        }
        #expect(unpaired?.message.contains("pairingRequired") == true)
    }
}
