import BridgeCore
import BridgeFoundation
import DeviceProfiles
import DeviceSessions
import Foundation
import GATTDecoding
import TestSupport
import Testing

/// The shipped `Devices/` profiles against a catalogue of advertisements: each must be claimed by exactly
/// the intended profile, strictly ahead of any other profile that also matches (first-match collisions are
/// a known failure of other bridges).
@Suite struct ProfileCatalogueTests {
    static let devices = PackageRoot.devices

    static let loaded = DeviceProfileLoader.load(directories: [devices])

    struct Fixture: Sendable, CustomTestStringConvertible {
        var label: String
        var advertisement: Advertisement
        /// nil: no profile may claim it.
        var expected: String?
        var testDescription: String { label }
    }

    /// The QN platform's manufacturer data: header, model code (0x2601, Etekcity ESF-24), two unknown bytes, MAC.
    static let qnManufacturerData: [UInt8] = [0x01, 0x26, 0x01, 0x00, 0x00, 0x55, 0x44, 0x33, 0x22, 0x11, 0x04]

    static let fixtures: [Fixture] = [
        Fixture(
            label: "WSS scale",
            advertisement: Advertisement(name: "WS-100", serviceUUIDs: [.weightScaleService]),
            expected: "weight-scale"
        ),
        Fixture(
            label: "WSS scale, 128-bit UUID",
            advertisement: Advertisement(serviceUUIDs: [BluetoothUUID("0000181D-0000-1000-8000-00805F9B34FB")!]),
            expected: "weight-scale"
        ),
        Fixture(
            label: "BCS scale advertising 181B and 181D",
            advertisement: Advertisement(serviceUUIDs: [.bodyCompositionService, .weightScaleService]),
            expected: "body-composition-scale"
        ),
        Fixture(
            label: "BCS scale, 181B only",
            advertisement: Advertisement(serviceUUIDs: [.bodyCompositionService]),
            expected: "body-composition-scale"
        ),
        Fixture(
            label: "multi-user scale with the User Data Service (Beurer BF720 style)",
            advertisement: Advertisement(
                name: "BF720",
                serviceUUIDs: [BluetoothUUID(0x181C), .bodyCompositionService, .weightScaleService]
            ),
            expected: "uds-body-composition-scale"
        ),
        Fixture(
            label: "Omron BLEsmart cuff (company 0x020E, flags bit 5: standard services only)",
            advertisement: Advertisement(
                name: "BLEsmart_00000116",
                serviceUUIDs: [.bloodPressureService],
                manufacturerData: [0x020E: [0x01, 0x20]]
            ),
            expected: "omron-blesmart-blood-pressure"
        ),
        Fixture(
            label: "Omron HEM-7150T memory-map cuff, also advertising 1810 and company 0x020E",
            advertisement: Advertisement(
                name: "HEM-7150T",
                serviceUUIDs: [.bloodPressureService],
                manufacturerData: [0x020E: [0x01, 0x00]]
            ),
            expected: "omron-hem-7150t"
        ),
        Fixture(
            label: "Omron HEM-7155T memory-map cuff, also advertising 1810 and company 0x020E",
            advertisement: Advertisement(
                name: "HEM-7155T",
                serviceUUIDs: [.bloodPressureService],
                manufacturerData: [0x020E: [0x01, 0x00]]
            ),
            expected: "omron-hem-7155t"
        ),
        Fixture(
            label: "Omron HEM-7342T memory-map cuff, also advertising 1810 and company 0x020E",
            advertisement: Advertisement(
                name: "HEM-7342T",
                serviceUUIDs: [.bloodPressureService],
                manufacturerData: [0x020E: [0x01, 0x00]]
            ),
            expected: "omron-hem-7342t"
        ),
        Fixture(
            label: "Omron HEM-7361T memory-map cuff, also advertising 1810 and company 0x020E",
            advertisement: Advertisement(
                name: "HEM-7361T",
                serviceUUIDs: [.bloodPressureService],
                manufacturerData: [0x020E: [0x01, 0x00]]
            ),
            expected: "omron-hem-7361t"
        ),
        Fixture(
            label: "Omron HEM-7322T memory-map cuff, also advertising 1810 and company 0x020E",
            advertisement: Advertisement(
                name: "HEM-7322T",
                serviceUUIDs: [.bloodPressureService],
                manufacturerData: [0x020E: [0x01, 0x00]]
            ),
            expected: "omron-hem-7322t"
        ),
        Fixture(
            label: "Omron HEM-7600T memory-map cuff, also advertising 1810 and company 0x020E",
            advertisement: Advertisement(
                name: "HEM-7600T",
                serviceUUIDs: [.bloodPressureService],
                manufacturerData: [0x020E: [0x01, 0x00]]
            ),
            expected: "omron-hem-7600t"
        ),
        Fixture(
            label: "Omron HEM-7530T memory-map cuff, also advertising 1810 and company 0x020E",
            advertisement: Advertisement(
                name: "HEM-7530T",
                serviceUUIDs: [.bloodPressureService],
                manufacturerData: [0x020E: [0x01, 0x00]]
            ),
            expected: "omron-hem-7530t"
        ),
        Fixture(
            label: "Omron cuff using the Omron extension (flags bit 5 clear)",
            advertisement: Advertisement(
                name: "BLEsmart_0000011F",
                serviceUUIDs: [.bloodPressureService],
                manufacturerData: [0x020E: [0x01, 0x00, 0x03, 0x00, 0x08]]
            ),
            expected: "omron-blesmart-option-service"
        ),
        Fixture(
            label: "thermometer",
            advertisement: Advertisement(serviceUUIDs: [.healthThermometerService]),
            expected: "health-thermometer"
        ),
        Fixture(
            label: "heart-rate strap",
            advertisement: Advertisement(name: "Polar H10 1A2B3C4D", serviceUUIDs: [.heartRateService]),
            expected: "heart-rate"
        ),
        Fixture(
            label: "blood-pressure cuff",
            advertisement: Advertisement(serviceUUIDs: [.bloodPressureService, .deviceInformationService]),
            expected: "blood-pressure"
        ),
        Fixture(
            label: "BM85 cuff (vendor quirks win over the generic profile)",
            advertisement: Advertisement(name: "BM85", serviceUUIDs: [.bloodPressureService]),
            expected: "beurer-bm85"
        ),
        Fixture(
            label: "BM48 cuff (vendor quirks win over the generic profile)",
            advertisement: Advertisement(name: "BM48", serviceUUIDs: [.bloodPressureService]),
            expected: "beurer-bm48"
        ),
        Fixture(
            label: "BM59 cuff (vendor quirks win over the generic profile)",
            advertisement: Advertisement(name: "BM59", serviceUUIDs: [.bloodPressureService]),
            expected: "beurer-bm59"
        ),
        Fixture(
            label: "ELITE900 cuff (vendor quirks win over the generic profile)",
            advertisement: Advertisement(name: "ELITE900", serviceUUIDs: [.bloodPressureService]),
            expected: "beurer-elite900"
        ),
        Fixture(
            label: "SBM69 cuff (vendor quirks win over the generic profile)",
            advertisement: Advertisement(name: "SBM69", serviceUUIDs: [.bloodPressureService]),
            expected: "silvercrest-sbm"
        ),
        Fixture(
            label: "glucose meter",
            advertisement: Advertisement(serviceUUIDs: [.glucoseService]),
            expected: "glucose-meter"
        ),
        Fixture(
            label: "pulse oximeter",
            advertisement: Advertisement(serviceUUIDs: [.pulseOximeterService]),
            expected: "pulse-oximeter"
        ),
        Fixture(
            label: "Mi Scale v1 (181D service data)",
            advertisement: Advertisement(
                name: "MI_SCALE",
                serviceData: [.weightScaleService: [0x20, 0xA4, 0x38, 0xE8, 0x07, 0x03, 0x0F, 0x07, 0x1E, 0x00]]
            ),
            expected: "mi-scale"
        ),
        Fixture(
            label: "Mi Scale v1 that also lists 181D",
            advertisement: Advertisement(
                serviceUUIDs: [.weightScaleService],
                serviceData: [.weightScaleService: [0x20, 0xA4, 0x38, 0xE8, 0x07, 0x03, 0x0F, 0x07, 0x1E, 0x00]]
            ),
            expected: "mi-scale"
        ),
        Fixture(
            label: "Mi Body Composition Scale 2 (181B service data)",
            advertisement: Advertisement(
                name: "MIBFS",
                serviceData: [.bodyCompositionService: Array(repeating: 0, count: 13)]
            ),
            expected: "mi-body-composition-scale-2"
        ),
        Fixture(
            label: "Mi BCS2 that also lists 181B",
            advertisement: Advertisement(
                serviceUUIDs: [.bodyCompositionService],
                serviceData: [.bodyCompositionService: Array(repeating: 0, count: 13)],
                manufacturerData: [0x0157: [0x01]]
            ),
            expected: "mi-body-composition-scale-2"
        ),
        Fixture(
            label: "A&D UC-352BLE by name prefix",
            advertisement: Advertisement(name: "A&D_UC-352BLE_0A1B2C", serviceUUIDs: [.weightScaleService]),
            expected: "and-uc-352ble"
        ),
        Fixture(
            label: "A&D name without the WSS service",
            advertisement: Advertisement(name: "A&D_UC-352BLE_0A1B2C"),
            expected: nil
        ),
        // The vendor-protocol catalogue of issue 13 (profiles written in the frame language).
        Fixture(
            label: "QN scale, FFE0 layout, with the QN platform's manufacturer data",
            advertisement: Advertisement(
                name: "QN-Scale",
                serviceUUIDs: [BluetoothUUID(0xFFE0)],
                manufacturerData: [0xFFFF: Self.qnManufacturerData]
            ),
            expected: "qn-scale-ffe0"
        ),
        Fixture(
            label: "QN scale, FFF0 layout (Renpho ES-CS20M)",
            advertisement: Advertisement(
                name: "Renpho-Scale",
                serviceUUIDs: [BluetoothUUID(0xFFF0)],
                manufacturerData: [0xFFFF: Self.qnManufacturerData]
            ),
            expected: "qn-scale-fff0"
        ),
        Fixture(
            label: "Renpho QN scale that also lists 181B: the vendor protocol wins",
            advertisement: Advertisement(
                name: "Renpho-Scale",
                serviceUUIDs: [.bodyCompositionService, BluetoothUUID(0xFFE0)],
                manufacturerData: [0xFFFF: Self.qnManufacturerData]
            ),
            expected: "qn-scale-ffe0"
        ),
        Fixture(
            label: "consent scale with a vendor FFF0 service stays with the User Data Service profile",
            advertisement: Advertisement(
                name: "BF720",
                serviceUUIDs: [BluetoothUUID(0x181C), .bodyCompositionService, BluetoothUUID(0xFFF0)],
                manufacturerData: [0xFFFF: Self.qnManufacturerData]
            ),
            expected: "uds-body-composition-scale"
        ),
        Fixture(
            label: "QN broadcast-only scale (AA BB manufacturer data)",
            advertisement: Advertisement(
                name: "QN-Scale",
                manufacturerData: [
                    0xFFFF: [0xAA, 0xBB] + Array(repeating: 0, count: 13) + [0x23, 0x00, 0x58, 0x1B, 0, 0, 0, 0]
                ]
            ),
            expected: "qn-scale-broadcast"
        ),
        Fixture(
            label: "company 0xFFFF data without a QN service or the AA BB header",
            advertisement: Advertisement(manufacturerData: [0xFFFF: [0x01, 0x02, 0x03]]),
            expected: nil
        ),
        Fixture(
            label: "Renpho ES-WBE28: SIG services, proprietary resolution, wins over the standard profiles",
            advertisement: Advertisement(
                name: "Renpho-Scale",
                serviceUUIDs: [.bodyCompositionService, .weightScaleService]
            ),
            expected: "renpho-es-wbe28"
        ),
        Fixture(
            label: "Renpho ES-WBE28 that also lists the User Data Service",
            advertisement: Advertisement(
                name: "Renpho-Scale",
                serviceUUIDs: [BluetoothUUID(0x181C), .bodyCompositionService, .weightScaleService]
            ),
            expected: "renpho-es-wbe28"
        ),
        Fixture(
            label: "Renpho ES-26BB-B",
            advertisement: Advertisement(name: "ES-26BB-B", serviceUUIDs: [BluetoothUUID(0x1A10)]),
            expected: "renpho-es26bb"
        ),
        Fixture(
            label: "Etekcity ESF-551 (company 1744, model code 2)",
            advertisement: Advertisement(
                name: "Etekcity Smart Fitness Scale",
                manufacturerData: [0x06D0: [0x01, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11, 0x00, 0x02]]
            ),
            expected: "etekcity-esf551"
        ),
        Fixture(
            label: "another Etekcity-platform product (model code C6 23, an air purifier)",
            advertisement: Advertisement(manufacturerData: [
                0x06D0: [0x01, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11, 0xC6, 0x23]
            ]),
            expected: nil
        ),
        Fixture(
            label: "Yunmai",
            advertisement: Advertisement(name: "YUNMAI-ISM2-W", serviceUUIDs: [BluetoothUUID(0xFFE0)]),
            expected: "yunmai"
        ),
        Fixture(
            label: "Eufy C1 (T9146)",
            advertisement: Advertisement(name: "eufy T9146", serviceUUIDs: [BluetoothUUID(0xFFF0)]),
            expected: "eufy-c1"
        ),
        Fixture(
            label: "Eufy P1 (T9147)",
            advertisement: Advertisement(name: "eufy T9147", serviceUUIDs: [BluetoothUUID(0xFFF0)]),
            expected: "eufy-p1"
        ),
        Fixture(
            label: "Eufy P2 (T9148, AES handshake)",
            advertisement: Advertisement(name: "eufy T9148", serviceUUIDs: [BluetoothUUID(0xFFF0)]),
            expected: "eufy-p2"
        ),
        Fixture(
            label: "Eufy P2 Pro (T9149, AES handshake)",
            advertisement: Advertisement(name: "eufy T9149"),
            expected: "eufy-p2"
        ),
        Fixture(
            label: "1byone Health Scale",
            advertisement: Advertisement(name: "Health Scale", serviceUUIDs: [BluetoothUUID(0xFFF0)]),
            expected: "onebyone-health-scale"
        ),
        Fixture(
            label: "1byone scale (FFB0 protocol)",
            advertisement: Advertisement(name: "1byone scale", serviceUUIDs: [BluetoothUUID(0xFFB0)]),
            expected: "onebyone-scale"
        ),
        Fixture(
            label: "SWAN scale (MGB protocol on FFB0)",
            advertisement: Advertisement(name: "Swan", serviceUUIDs: [BluetoothUUID(0xFFB0)]),
            expected: "swan-mgb-scale"
        ),
        Fixture(
            label: "Beurer BF800 (F7 protocol)",
            advertisement: Advertisement(name: "BEURER BF800", serviceUUIDs: [BluetoothUUID(0xFFE0)]),
            expected: "beurer-bf700-800"
        ),
        Fixture(
            label: "Beurer BF710 (advertises as BF700)",
            advertisement: Advertisement(name: "BF700", serviceUUIDs: [BluetoothUUID(0xFFE0)]),
            expected: "beurer-bf710"
        ),
        Fixture(
            label: "Sanitas SBF70",
            advertisement: Advertisement(name: "SANITAS SBF70", serviceUUIDs: [BluetoothUUID(0xFFE0)]),
            expected: "sanitas-sbf70-75"
        ),
        Fixture(
            label: "Sanitas SBF72 with the User Data Service stays with the UDS profile",
            advertisement: Advertisement(
                name: "SBF72",
                serviceUUIDs: [BluetoothUUID(0x181C), .bodyCompositionService, .weightScaleService]
            ),
            expected: "uds-body-composition-scale"
        ),
        Fixture(
            label: "a Beurer consent scale whose name fits the BF700/800 pattern stays with the UDS profile",
            advertisement: Advertisement(
                name: "BEURER BF600",
                serviceUUIDs: [BluetoothUUID(0x181C), .weightScaleService]
            ),
            expected: "uds-body-composition-scale"
        ),
        Fixture(
            label: "SilverCrest AICDSCALE1",
            advertisement: Advertisement(name: "AICDSCALE1", serviceUUIDs: [BluetoothUUID(0xFFE0)]),
            expected: "silvercrest-aicdscale1"
        ),
        Fixture(
            label: "Medisana BS430",
            advertisement: Advertisement(name: "0203B1A2C3D4", serviceUUIDs: [BluetoothUUID(0x78B2)]),
            expected: "medisana-bs430"
        ),
        Fixture(
            label: "Medisana BS444",
            advertisement: Advertisement(name: "0131971A2B3C", serviceUUIDs: [BluetoothUUID(0x78B2)]),
            expected: "medisana-bs44x"
        ),
        Fixture(
            label: "Medisana scale of an unrecognised model",
            advertisement: Advertisement(name: "BS410", serviceUUIDs: [BluetoothUUID(0x78B2)]),
            expected: "medisana-78b2"
        ),
        Fixture(
            label: "Xiaomi S400 encrypted MiBeacon (product 0x3BD5, published advertisement)",
            advertisement: Advertisement(
                serviceData: [
                    BluetoothUUID(0xFE95): [
                        0x48, 0x59, 0xD5, 0x3B, 0x0A, 0xBC, 0x07, 0x8F, 0xF2, 0x34, 0x8C, 0x84, 0x41, 0x38, 0xE9, 0x30,
                        0x22, 0x00, 0x00, 0x00, 0x9E, 0x53, 0x85, 0x99,
                    ]
                ]
            ),
            expected: "xiaomi-s400"
        ),
        Fixture(
            label: "Xiaomi S200 encrypted MiBeacon (product 0x4C04)",
            advertisement: Advertisement(serviceData: [BluetoothUUID(0xFE95): [0x48, 0x59, 0x04, 0x4C, 0x01]]),
            expected: "xiaomi-s200"
        ),
        Fixture(
            label: "another MiBeacon product (a thermometer-hygrometer, 0x055B) is not claimed",
            advertisement: Advertisement(serviceData: [BluetoothUUID(0xFE95): [0x58, 0x58, 0x5B, 0x05, 0x01]]),
            expected: nil
        ),
        Fixture(
            label: "Vitafit VT-701",
            advertisement: Advertisement(name: "Vitafit", serviceUUIDs: [BluetoothUUID(0xFFF0)]),
            expected: "vitafit-vt701"
        ),
        Fixture(
            label: "OKOK V20 broadcast scale",
            advertisement: Advertisement(
                name: "Chipsea-BLE",
                manufacturerData: [0x20CA: Array(repeating: 0, count: 19)]
            ),
            expected: "okok-v20-broadcast"
        ),
        Fixture(
            label: "BerryMed oximeter on the Microchip transparent UART service",
            advertisement: Advertisement(
                name: "BerryMed",
                serviceUUIDs: [BluetoothUUID("49535343-FE7D-4AE5-8FA9-9FAFD205E455")!]
            ),
            expected: "berrymed-bci-oximeter"
        ),
        Fixture(
            label: "an OBD dongle on the same Microchip UART service is not claimed",
            advertisement: Advertisement(
                name: "OBDII",
                serviceUUIDs: [BluetoothUUID("49535343-FE7D-4AE5-8FA9-9FAFD205E455")!]
            ),
            expected: nil
        ),
        Fixture(
            label: "Jumper-style oximeter",
            advertisement: Advertisement(
                name: "My Oximeter",
                serviceUUIDs: [BluetoothUUID("CDEACB80-5235-4C07-8846-93A37EE6B86D")!]
            ),
            expected: "jumper-oximeter"
        ),
        Fixture(
            label: "a phone",
            advertisement: Advertisement(name: "Pixel 8", manufacturerData: [0x00E0: [0x01, 0x02]]),
            expected: nil
        ),
        Fixture(
            label: "battery service only",
            advertisement: Advertisement(serviceUUIDs: [.batteryService]),
            expected: nil
        ),
        Fixture(label: "nothing at all", advertisement: Advertisement(), expected: nil),
    ]

    @Test func shippedProfilesLoadWithoutProblems() {
        #expect(Self.loaded.problems.isEmpty, "\(Self.loaded.problems)")
        let ids = Set(Self.loaded.catalog.profiles.map(\.id))
        for required in [
            "weight-scale", "body-composition-scale", "health-thermometer", "heart-rate", "blood-pressure",
            "glucose-meter", "pulse-oximeter", "mi-scale", "mi-body-composition-scale-2",
        ] {
            #expect(ids.contains(required), "missing profile \(required)")
        }
    }

    @Test("each advertisement is claimed by exactly the intended profile", arguments: fixtures)
    func claimedByIntendedProfile(fixture: Fixture) {
        let candidates = Self.loaded.catalog.candidates(for: fixture.advertisement)
        #expect(candidates.first?.id == fixture.expected)
        if candidates.count > 1 {
            #expect(
                candidates[0].match.priority > candidates[1].match.priority,
                "\(candidates[0].id) and \(candidates[1].id) tie at priority \(candidates[0].match.priority)"
            )
        }
        let plan = Self.loaded.catalog.plan(forDevice: "02:00:00:00:00:01", advertisement: fixture.advertisement)
        #expect(plan?.profile == fixture.expected)
    }

    @Test func everyShippedProfileIsClaimableByOneFixture() {
        let claimed = Set(Self.fixtures.compactMap(\.expected))
        for profile in Self.loaded.catalog.profiles {
            let ownAdvertisement = profile.fixtures.contains { $0.advertisement != nil }
            #expect(
                claimed.contains(profile.id) || ownAdvertisement,
                "no fixture advertisement for \(profile.id) (here or in the profile's own fixtures)"
            )
        }
    }

    /// The advertisements of the profiles' own fixtures join the catalogue above: each is claimed by its profile,
    /// strictly ahead of every other shipped profile.
    @Test func everyProfilesOwnFixtureAdvertisementIsClaimedByItWithoutATie() {
        for profile in Self.loaded.catalog.profiles {
            for fixture in profile.fixtures {
                guard let advertisement = fixture.advertisement else { continue }
                let candidates = Self.loaded.catalog.candidates(for: advertisement)
                #expect(candidates.first?.id == profile.id, "\(profile.id) / \(fixture.name): \(candidates.map(\.id))")
                if candidates.count > 1 {
                    #expect(
                        candidates[0].match.priority > candidates[1].match.priority,
                        "\(candidates[0].id) and \(candidates[1].id) tie on \(profile.id) / \(fixture.name)"
                    )
                }
            }
        }
    }

    @Test func everyDecoderNamedByAProfileExists() {
        for profile in Self.loaded.catalog.profiles {
            for identifier in profile.decoderIdentifiers {
                #expect(
                    DecoderCatalog.decoder(identifier: identifier) != nil,
                    "\(profile.id) names unknown decoder \(identifier)"
                )
            }
        }
    }

    @Test func connectionPlanCarriesLinkModeSubscriptionsAndQuirks() throws {
        let glucose = try #require(Self.loaded.catalog.profile(id: "glucose-meter"))
        let plan = glucose.connectionPlan
        #expect(plan.linkMode == .gatt)
        #expect(plan.requiresPairing)
        #expect(plan.subscribe.contains(.glucoseMeasurement))
        #expect(plan.subscribe.contains(.recordAccessControlPoint))
        #expect(plan.readOnce.contains(.manufacturerNameString))
        #expect(!plan.readOnce.contains(.glucoseMeasurement))
        let mi = try #require(Self.loaded.catalog.profile(id: "mi-body-composition-scale-2"))
        #expect(mi.connectionPlan.linkMode == .broadcast)
        #expect(mi.quirks.broadcastRepeats)
    }
}
