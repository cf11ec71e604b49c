import BridgeFoundation
import FrameDecoding
import Testing

/// MiBeacon advertisements, decrypted with their bind keys: the frames and keys are the published ones of
/// Bluetooth-Devices/xiaomi-ble `tests/test_parser.py` (commit 509f516e46dfd21172a70c7e66955ecf3f0923e6), real
/// advertisements of a Xiaomi S400 (MJTZC01YM) and S200 (MJTZC02YM).
@Suite struct MiBeaconTests {
    static let s400Key = "0728974d657a4b60964c1b1677f35f7c"
    /// test_Xiaomi_Scale_S400_MJTZC01YM, address 8C:D0:B2:F6:BE:EF.
    static let s400First = "48 59 D5 3B 0A BC 07 8F F2 34 8C 84 41 38 E9 30 22 00 00 00 9E 53 85 99"

    static func bytes(_ text: String) throws -> [UInt8] { try Hex.bytes(String(text.filter { $0 != " " })) }

    @Test("decrypts a published S400 advertisement to its weigh-in object")
    func decryptsS400() throws {
        let beacon = try MiBeacon(
            Self.bytes(Self.s400First),
            address: "8C:D0:B2:F6:BE:EF",
            bindKey: Self.bytes(Self.s400Key)
        )
        #expect(beacon.version == 5)
        #expect(beacon.productID == 0x3BD5)
        #expect(beacon.isEncrypted)
        // Object 0x6E16, 9 bytes: profile 1, packed weight/heart rate/impedance, a Unix time stamp.
        #expect(beacon.objects == [MiBeacon.Object(id: 0x6E16, data: try Self.bytes("01 BB 52 E1 54 ED 26 F7 67"))])
        #expect(beacon.objects.first?.bytes == (try Self.bytes("16 6E 09 01 BB 52 E1 54 ED 26 F7 67")))
    }

    @Test("decrypts a published S200 advertisement")
    func decryptsS200() throws {
        // test_Xiaomi_Scale_S200_MJTZC02YM, address D0:7B:6F:27:D7:29.
        let beacon = try MiBeacon(
            Self.bytes("48 59 04 4C 01 9A 80 A2 75 93 90 10 F0 AB C4 FA DC 06 00 00 3D 29 C0 44"),
            address: "D0:7B:6F:27:D7:29",
            bindKey: Self.bytes("653b1b10e1cb35e4ac5e60fa45f3bf29")
        )
        #expect(beacon.objects == [MiBeacon.Object(id: 0x4E16, data: try Self.bytes("01 51 18 00 00 8A 1B 11 69"))])
    }

    @Test("a wrong key, another address or a changed byte gives no objects")
    func refusesWhatDoesNotAuthenticate() throws {
        let frame = try Self.bytes(Self.s400First)
        let key = try Self.bytes(Self.s400Key)
        var wrongKey = key
        wrongKey[0] ^= 0x01
        #expect(throws: MiBeacon.Failure.authenticationFailed) {
            try MiBeacon(frame, address: "8C:D0:B2:F6:BE:EF", bindKey: wrongKey)
        }
        #expect(throws: MiBeacon.Failure.authenticationFailed) {
            try MiBeacon(frame, address: "8C:D0:B2:F6:BE:EE", bindKey: key)
        }
        for index in 2..<frame.count {
            var changed = frame
            changed[index] ^= 0x10
            #expect(throws: MiBeacon.Failure.authenticationFailed) {
                try MiBeacon(changed, address: "8C:D0:B2:F6:BE:EF", bindKey: key)
            }
        }
    }

    @Test("an encrypted frame without a bind key says so")
    func needsBindKey() throws {
        #expect(throws: MiBeacon.Failure.noBindKey) {
            try MiBeacon(Self.bytes(Self.s400First), address: "8C:D0:B2:F6:BE:EF", bindKey: nil)
        }
        #expect(throws: MiBeacon.Failure.bindKeySize(15)) {
            try MiBeacon(
                Self.bytes(Self.s400First),
                address: "8C:D0:B2:F6:BE:EF",
                bindKey: [UInt8](repeating: 1, count: 15)
            )
        }
    }

    @Test("reads an unencrypted frame's objects after its MAC and capability")
    func readsUnencryptedFrame() throws {
        // custom-components/ble_monitor tests/test_xiaomi_parser.py test_Xiaomi_MMC_W505: MAC and capability
        // included, object 0x000A with 2 bytes.
        let beacon = try MiBeacon(
            Self.bytes("70 22 91 03 0F DB AB 53 18 24 D0 09 0A 00 02 75 0D"),
            address: "D0:24:18:53:AB:DB",
            bindKey: nil
        )
        #expect(!beacon.isEncrypted)
        #expect(beacon.objects == [MiBeacon.Object(id: 0x000A, data: [0x75, 0x0D])])
    }

    @Test("every truncated prefix of an encrypted frame is refused, never read out of bounds")
    func refusesTruncatedFrames() throws {
        let frame = try Self.bytes(Self.s400First)
        let key = try Self.bytes(Self.s400Key)
        for length in 0..<frame.count {
            #expect(throws: MiBeacon.Failure.self) {
                try MiBeacon(Array(frame.prefix(length)), address: "8C:D0:B2:F6:BE:EF", bindKey: key)
            }
        }
    }
}
