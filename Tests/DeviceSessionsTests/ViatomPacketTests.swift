import BridgeFoundation
import DeviceSessions
import Testing

/// Viatom's command packets (Wellue O2Ring, Checkme O2): requests built, responses checked, against the layout in
/// MackeyStingray/o2r `o2r/o2pkt.py` (commit e8ad57f9). The CRC-8 values were computed independently (CRC-8/SMBUS,
/// polynomial 0x07, initial 0).
@Suite struct ViatomPacketTests {
    @Test(
        "builds requests with the inverted command, block, length and CRC-8",
        arguments: [
            // AA | 14 info | EB = 14 ^ FF | block 0000 | length 0000 | CRC
            (ViatomPacket.Command.info, UInt16(0), "", "AA 14 EB 00 00 00 00 C6"),
            // AA | 04 file read | FB | block 2 | no data | CRC
            (.fileRead, 2, "", "AA 04 FB 02 00 00 00 46"),
            // AA | 03 file open | FC | block 0 | 15 bytes: the name and a NUL | CRC
            (.fileOpen, 0, "20210427225010\0", "AA 03 FC 00 00 0F 00 32 30 32 31 30 34 32 37 32 32 35 30 31 30 00 B5"),
        ]
    )
    func buildsRequests(command: ViatomPacket.Command, block: UInt16, name: String, hex: String) throws {
        #expect(ViatomPacket.request(command, block: block, data: Array(name.utf8)) == (try Hex.bytes(hex)))
    }

    /// 55 | status 00 | FF | block 0 | length 4 | a file size of 93 bytes (u32le) | CRC
    static let openResponse = "55 00 FF 00 00 04 00 5D 00 00 00 E8"

    @Test func readsAResponseAndTheLengthItsHeaderAnnounces() throws {
        let bytes = try Hex.bytes(Self.openResponse)
        #expect(ViatomPacket.responseLength(Array(bytes.prefix(7))) == 12)
        #expect(ViatomPacket.responseLength(Array(bytes.prefix(6))) == nil)
        let packet = try ViatomPacket(response: bytes)
        #expect(packet.status == 0)
        #expect(packet.block == 0)
        #expect(packet.data == [0x5D, 0x00, 0x00, 0x00])
    }

    @Test func refusesAChangedByteAWrongLengthAndARequest() throws {
        let bytes = try Hex.bytes(Self.openResponse)
        for index in 3..<bytes.count - 1 {
            var changed = bytes
            changed[index] ^= 0x01
            #expect(throws: ViatomPacket.Failure.self) { try ViatomPacket(response: changed) }
        }
        #expect(throws: ViatomPacket.Failure.length(expected: 12, actual: 11)) {
            try ViatomPacket(response: Array(bytes.dropLast()))
        }
        #expect(throws: ViatomPacket.Failure.notAResponse(first: 0xAA)) {
            try ViatomPacket(response: ViatomPacket.request(.info, data: [0]))
        }
        for length in 0..<8 {
            #expect(throws: ViatomPacket.Failure.self) { try ViatomPacket(response: Array(bytes.prefix(length))) }
        }
    }
}
