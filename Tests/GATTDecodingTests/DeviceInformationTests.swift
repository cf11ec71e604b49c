import BridgeFoundation
import GATTDecoding
import TestSupport
import Testing

@Suite struct BatteryLevelTests {
    @Test func decodesTheDocumentExample() throws {
        // 5A → 90 %
        let value = try BatteryLevel.decode(hex("5A"))
        #expect(value.level == 90)
        #expect(!value.isOutOfRange)
        #expect(value.fields == ["level": .int(90), "unit": .string("%")])
    }

    @Test(arguments: [(UInt8(0), false), (100, false), (101, true), (255, true)])
    func flagsLevelsAboveOneHundred(level: UInt8, outOfRange: Bool) throws {
        let value = try BatteryLevel.decode([level])
        #expect(value.isOutOfRange == outOfRange)
        #expect(value.fields["outOfRange"] == (outOfRange ? .bool(true) : nil))
    }

    @Test func rejectsAnEmptyValue() {
        expectEveryPrefixThrows(BatteryLevel.self, [0x5A])
    }
}

@Suite struct DeviceInformationStringTests {
    static let decoders: [(any GATTPayload.Type, UInt16)] = [
        (ManufacturerNameString.self, 0x2A29), (ModelNumberString.self, 0x2A24), (SerialNumberString.self, 0x2A25),
        (HardwareRevisionString.self, 0x2A27), (FirmwareRevisionString.self, 0x2A26),
        (SoftwareRevisionString.self, 0x2A28),
    ]

    @Test func eachStringCharacteristicHasItsOwnDecoder() {
        for (decoder, uuid) in Self.decoders {
            #expect(DecoderCatalog.decoder(forCharacteristic: BluetoothUUID(uuid)) == decoder)
            #expect(decoder.name.hasSuffix("String"))
        }
        #expect(Set(Self.decoders.map { $0.0.identifier }).count == 6)
    }

    @Test(arguments: [
        ("A&D Medical", "A&D Medical"),
        ("UA-651BLE\0\0\0\0", "UA-651BLE"),
        ("1.0.3   \0 \0", "1.0.3"),
        ("  leading kept\r\n\t", "  leading kept"),
        ("", ""),
        ("\0\0\0", ""),
        ("Ωmron 血圧計", "Ωmron 血圧計"),
    ])
    func trimsTrailingNulAndWhitespace(text: String, expected: String) throws {
        for (decoder, _) in Self.decoders {
            let value = try decoder.decode(Array(text.utf8))
            #expect(value.fields["value"] == .string(expected))
            #expect(value.fields["invalidUTF8"] == nil)
        }
        let manufacturer = try ManufacturerNameString.decode(Array(text.utf8))
        #expect(manufacturer.value == expected)
        #expect(manufacturer.raw == Array(text.utf8))
    }

    @Test func replacementMatchesTheStandardLibrary() throws {
        var rng = SplitMix64(state: 7)
        let edge: [[UInt8]] = [
            [0xE0, 0x80, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xF0, 0x9F, 0x98], [0xC0, 0xAF],
            [0xE2, 0x82, 0xAC], [0xF0, 0x9F, 0x98, 0x80], [0xEF, 0xBF, 0xBD], [0x80, 0x80, 0xC2], [0xF5, 0x41],
        ]
        let random = (0..<2000).map { _ in (0..<rng.below(24)).map { _ in rng.byte() } }
        for bytes in edge + random {
            let value = try SoftwareRevisionString.decode(bytes + [0x41])  // a final "A" so nothing is trimmed
            #expect(value.value == String(decoding: bytes + [0x41], as: UTF8.self), "\(Hex.string(bytes))")
            #expect((value.fields["invalidUTF8"] != nil) == (String(validating: bytes, as: UTF8.self) == nil))
        }
    }

    @Test func replacesInvalidUTF8AndKeepsTheRawBytes() throws {
        let value = try SerialNumberString.decode([0x41, 0xFF, 0x42, 0xC3, 0x00])
        #expect(value.value == "A\u{FFFD}B\u{FFFD}")
        #expect(value.fields["invalidUTF8"] == .bool(true))
        #expect(value.fields["raw"] == .string("41ff42c300"))
    }
}

@Suite struct SystemIDTests {
    private let payload: [UInt8] = [
        0x01, 0x02, 0x03, 0x04, 0x05,  // manufacturer identifier 0x0504030201 (40-bit LE)
        0xDC, 0x1B, 0x00,  // OUI 0x001BDC (24-bit LE)
    ]

    @Test func decodesManufacturerIdentifierAndOUI() throws {
        let value = try SystemID.decode(payload)
        #expect(value.manufacturerIdentifier == 0x05_0403_0201)
        #expect(value.organizationallyUniqueIdentifier == 0x001BDC)
        #expect(value.ouiText == "00:1B:DC")
        #expect(
            value.fields == [
                "manufacturerIdentifier": .int(0x05_0403_0201),
                "manufacturerIdentifierHex": .string("0x0504030201"),
                "organizationallyUniqueIdentifier": .string("00:1B:DC"),
            ]
        )
    }

    /// The EUI-64 the PHD IG's System Id carries: the OUI's three octets, then the manufacturer identifier's five,
    /// most significant first.
    @Test func isTheEUI64WithTheOUIFirst() throws {
        #expect(try SystemID.decode(payload).eui64 == "00-1B-DC-05-04-03-02-01")
    }

    @Test func largestValuesDecode() throws {
        let value = try SystemID.decode([UInt8](repeating: 0xFF, count: 8))
        #expect(value.manufacturerIdentifier == 0xFF_FFFF_FFFF)
        #expect(value.ouiText == "FF:FF:FF")
    }

    @Test func rejectsEveryTruncatedPrefix() {
        expectEveryPrefixThrows(SystemID.self, payload)
    }
}

@Suite struct PnPIDTests {
    private let payload: [UInt8] = [
        0x01,  // vendor ID source: Bluetooth SIG
        0x0D, 0x00,  // vendor ID 0x000D
        0x34, 0x12,  // product ID 0x1234
        0x10, 0x01,  // product version 0x0110 → 1.1.0
    ]

    @Test func decodesVendorAndProduct() throws {
        let value = try PnPID.decode(payload)
        #expect(value.vendorIDSource == 1)
        #expect(value.vendorIDSourceName == "Bluetooth SIG")
        #expect(value.vendorID == 0x000D)
        #expect(value.productID == 0x1234)
        #expect(value.productVersion == 0x0110)
        #expect(value.productVersionText == "1.1.0")
        #expect(
            value.fields.keys == [
                "vendorIDSource", "vendorIDSourceName", "vendorID", "productID", "productVersion", "productVersionText",
            ]
        )
    }

    @Test func namesUSBAndReservedSources() throws {
        #expect(try PnPID.decode([0x02] + payload.dropFirst()).vendorIDSourceName == "USB Implementers Forum")
        #expect(try PnPID.decode([0x07] + payload.dropFirst()).vendorIDSourceName == "reserved")
    }

    @Test func rejectsEveryTruncatedPrefix() {
        expectEveryPrefixThrows(PnPID.self, payload)
    }
}
