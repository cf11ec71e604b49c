import BridgeFoundation
import GATTDecoding
import Testing

@Suite struct ServiceMembershipTests {
    @Test(
        arguments: [
            (0x2A9D, 0x181D), (0x2A9C, 0x181B), (0x2A1C, 0x1809), (0x2A1E, 0x1809), (0x2A37, 0x180D),
            (0x2A35, 0x1810), (0x2A36, 0x1810), (0x2A18, 0x1808), (0x2A34, 0x1808), (0x2A5E, 0x1822),
            (0x2A5F, 0x1822), (0x2A9F, 0x181C), (0x2A29, 0x180A), (0x2A19, 0x180F), (0x2A2B, 0x1805),
        ] as [(UInt16, UInt16)]
    )
    func aHealthCharacteristicBelongsToTheServiceItIsDefinedIn(characteristic: UInt16, service: UInt16) {
        #expect(ServiceMembership.service(of: BluetoothUUID(characteristic)) == BluetoothUUID(service))
    }

    @Test func theRecordAccessControlPointFollowsItsMeasurementAndIsUnknownAlone() {
        let racp = BluetoothUUID.recordAccessControlPoint
        #expect(ServiceMembership.service(of: racp, neighbours: [.glucoseMeasurement]) == .glucoseService)
        #expect(ServiceMembership.service(of: racp, neighbours: [.plxSpotCheckMeasurement]) == .pulseOximeterService)
        #expect(ServiceMembership.service(of: racp) == nil)
        // Two services with stored records beside it: which one is not for the importer to guess.
        #expect(
            ServiceMembership.service(of: racp, neighbours: [.glucoseMeasurement, .plxSpotCheckMeasurement]) == nil
        )
        // A weight scale's measurement does not make it a record service.
        #expect(ServiceMembership.service(of: racp, neighbours: [BluetoothUUID(0x2A9D)]) == nil)
    }

    @Test func aVendorCharacteristicHasNoSIGService() {
        #expect(ServiceMembership.service(of: BluetoothUUID("0000FFF4-0000-1000-8000-00805F9B34FB")!) == nil)
        #expect(ServiceMembership.service(of: BluetoothUUID(0xFFF4)) == nil)
    }
}
