import BridgeCore
import BridgeFoundation
import DeviceProfiles
import Foundation
import GATTDecoding
import Testing

/// `manufacturerData`, `serviceDataPatterns` and `not` in a profile's `match`.
@Suite struct AdvertisedDataMatchTests {
    static func profile(_ match: String, link: String = "gatt") throws -> DeviceProfile {
        try DeviceProfile(
            json: """
                {"id": "p", "name": "P", "link": "gatt", "match": \(match),
                 "characteristics": [{"uuid": "2A9D", "use": "indicate", "decoder": "weight-measurement"}]}
                """
        )
    }

    @Test func manufacturerDataPrefixMaskAndLengthAllHaveToHold() throws {
        let profile = try Self.profile(
            #"{"manufacturerData": [{"company": "FFFF", "prefix": "?? ?? AC", "mask": "00 00 FC", "length": {"min": 4, "max": 6}}]}"#
        )
        func claims(_ bytes: [UInt8], company: UInt16 = 0xFFFF) -> Bool {
            profile.match.matches(Advertisement(manufacturerData: [company: bytes]))
        }
        #expect(claims([0x01, 0x02, 0xAC, 0x00]))
        #expect(claims([0x01, 0x02, 0xAF, 0x00]), "the mask clears the low two bits")
        #expect(!claims([0x01, 0x02, 0xBC, 0x00]))
        #expect(!claims([0x01, 0x02, 0xAC]), "shorter than min")
        #expect(!claims([0x01, 0x02, 0xAC, 0, 0, 0, 0]), "longer than max")
        #expect(!claims([0x01, 0x02, 0xAC, 0x00], company: 0x0157))
    }

    @Test func serviceDataPatternAtAnOffsetClaimsAVendorPayloadOnAStandardUUID() throws {
        let profile = try Self.profile(
            #"{"serviceDataPatterns": [{"uuid": "181D", "prefix": "02", "offset": 1, "length": 10}]}"#
        )
        let vendor = Advertisement(serviceData: [.weightScaleService: [0x00, 0x02] + Array(repeating: 0, count: 8)])
        let other = Advertisement(serviceData: [.weightScaleService: [0x00, 0x03] + Array(repeating: 0, count: 8)])
        #expect(profile.match.matches(vendor))
        #expect(!profile.match.matches(other))
    }

    @Test func notRefusesAnAdvertisementForWhichEveryCriterionHolds() throws {
        let profile = try Self.profile(
            #"{"serviceUUIDs": ["181D"], "not": {"name": "MIBFS*", "manufacturerID": "0157"}}"#
        )
        let service = [BluetoothUUID.weightScaleService]
        #expect(profile.match.matches(Advertisement(name: "Scale", serviceUUIDs: service)))
        #expect(profile.match.matches(Advertisement(name: "MIBFS", serviceUUIDs: service)), "only one not criterion")
        #expect(
            !profile.match.matches(
                Advertisement(name: "MIBFS", serviceUUIDs: service, manufacturerData: [0x0157: [1]])
            )
        )
    }

    @Test func manufacturerDataAloneIsAUsableMatch() throws {
        let profile = try Self.profile(#"{"manufacturerData": [{"company": 65535}]}"#)
        #expect(profile.match.matches(Advertisement(manufacturerData: [0xFFFF: []])))
        #expect(!profile.match.isEmpty)
    }

    @Test(
        "match errors name the field and the problem",
        arguments: [
            (#"{"not": {"name": "X"}}"#, "match: give at least one of"),
            (#"{"name": "A", "not": {}}"#, "match.not: give at least one criterion"),
            (#"{"name": "A", "not": {"name": "B", "priority": 3}}"#, "match.not.priority: unknown key"),
            (#"{"manufacturerData": [{"prefix": "01"}]}"#, "match.manufacturerData[0].company: missing"),
            (
                #"{"manufacturerData": [{"company": "FFFF", "prefix": "0"}]}"#,
                "match.manufacturerData[0].prefix: not a byte pattern"
            ),
            (
                #"{"manufacturerData": [{"company": "FFFF", "prefix": "01 02", "mask": "FF"}]}"#,
                "match.manufacturerData[0].mask: mask has 1 bytes but the prefix has 2"
            ),
            (
                #"{"serviceDataPatterns": [{"uuid": "181D", "length": {"min": 5, "max": 2}}]}"#,
                "match.serviceDataPatterns[0].length: min 5 is greater than max 2"
            ),
            (
                #"{"serviceDataPatterns": [{"uuid": "181D", "size": 2}]}"#,
                "match.serviceDataPatterns[0].size: unknown key"
            ),
        ]
    )
    func matchErrorsNameTheField(match: String, message: String) {
        #expect {
            try Self.profile(match)
        } throws: { error in
            (error as? DeviceProfileError)?.description.hasPrefix(message) == true
        }
    }
}
