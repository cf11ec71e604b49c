import BridgeCore
import BridgeFoundation
import DeviceSessions
import GATTDecoding
import Testing

/// The pure parts of the Omron memory-map engine: packet framing and checksum, the assembly of answers from their
/// 16-byte pieces, record layouts, index pointers and ring planning.
@Suite struct OmronMemoryMapTests {
    static func hex(_ text: String) -> [UInt8] { try! Hex.bytes(text) }

    /// The 16-byte record layout of HEM-7361T-class cuffs (omblepy bit positions as byte offsets).
    static let littleEndianLayout = OmronRecordLayout(
        fields: [
            .init(name: "systolic", at: 0, kind: .u8, add: 25),
            .init(name: "diastolic", at: 1, kind: .u8),
            .init(name: "pulse", at: 2, kind: .u8),
            .init(name: "year", at: 3, kind: .u8, bits: 0...5, add: 2000),
            .init(name: "hour", at: 4, kind: .u16le, bits: 0...4),
            .init(name: "day", at: 4, kind: .u16le, bits: 5...9),
            .init(name: "month", at: 4, kind: .u16le, bits: 10...13),
            .init(name: "irregular", at: 4, kind: .u16le, bits: 14...14),
            .init(name: "movement", at: 4, kind: .u16le, bits: 15...15),
            .init(name: "second", at: 6, kind: .u16le, bits: 0...5, max: 59),
            .init(name: "minute", at: 6, kind: .u16le, bits: 6...11),
        ],
        samples: [
            .init(type: .bloodPressureSystolic, field: "systolic", unit: .millimetreOfMercury),
            .init(type: .bloodPressureDiastolic, field: "diastolic", unit: .millimetreOfMercury),
            .init(type: .heartRate, field: "pulse", unit: .perMinute),
        ],
        flags: [
            .init(field: "irregular", condition: "irregularPulse"), .init(field: "movement", condition: "bodyMovement"),
        ]
    )

    @Test func commandPacketsCarryLengthAddressCountAndAnXorThatZeroesThePacket() {
        // omblepy's documented example: read 0x26 bytes at 0x0260.
        #expect(OmronPacket.read(address: 0x0260, count: 0x26) == Self.hex("08 01 00 02 60 26 00 4d"))
        #expect(OmronPacket.start == Self.hex("08 00 00 00 00 10 00 18"))
        #expect(OmronPacket.end == Self.hex("08 0f 00 00 00 00 00 07"))
        #expect(OmronPacket.xor(OmronPacket.read(address: 0x06D8, count: 0x10)) == 0)
    }

    @Test func aReadResponseGivesItsAddressAndBytes() throws {
        let packet = OmronResponse.readPacket(address: 0x0098, data: [1, 2, 3])
        #expect(packet == Self.hex("0b 81 00 00 98 03 01 02 03 00 11"))
        let response = try OmronResponse(packet: packet)
        #expect(response.type == 0x8100)
        #expect(response.address == 0x0098)
        #expect(response.data == [1, 2, 3])
    }

    @Test func aPacketWithABadChecksumOrAShortReadIsRefusedSayingWhy() {
        var packet = OmronResponse.readPacket(address: 0x0098, data: [1, 2, 3])
        packet[7] ^= 0x40
        #expect(throws: OmronPacketError.checksum(packet)) { try OmronResponse(packet: packet) }
        #expect("\(OmronPacketError.checksum(packet))".contains("XOR of all bytes is not 0"))
        // Announces 5 bytes but carries 3.
        var short = Self.hex("0b 81 00 00 98 05 01 02 03 00")
        short.append(OmronPacket.xor(short))
        #expect(throws: OmronPacketError.shortRead(short)) { try OmronResponse(packet: short) }
        #expect(throws: OmronPacketError.malformed([0x09, 0x81])) { try OmronResponse(packet: [0x09, 0x81]) }
    }

    @Test func piecesAreAssembledByChannelInAnyOrder() {
        let packet = OmronResponse.readPacket(address: 0x0098, data: Array(0..<40))
        let pieces = OmronPacket.pieces(packet)
        #expect(pieces.count == 3)
        #expect(pieces.map(\.count) == [16, 16, 16])
        var assembler = OmronPacketAssembler()
        #expect(assembler.add(pieces[2], channel: 2) == nil)
        #expect(assembler.add(pieces[0], channel: 0) == nil)
        #expect(assembler.add(pieces[1], channel: 1) == packet)
        // A one-piece packet is complete at once, and the assembler starts over.
        #expect(assembler.add(OmronPacket.end, channel: 0) == OmronPacket.end)
    }

    @Test func piecesOnADevicesOneReceiveChannelAreJoinedInTheOrderTheyCame() {
        let packet = OmronResponse.readPacket(address: 0x01C4, data: Array(0..<40))
        let pieces = OmronPacket.pieces(packet)
        var assembler = OmronPacketAssembler(channels: 1)
        #expect(assembler.add(pieces[0], channel: 0) == nil)
        #expect(assembler.add(pieces[1], channel: 0) == nil)
        #expect(assembler.add(pieces[2], channel: 0) == packet)
        #expect(assembler.add(OmronPacket.end, channel: 0) == OmronPacket.end, "and it starts over")
    }

    @Test func publishedLittleEndianRecordsReadAsTheirSourceDecodedThem() throws {
        // hass-omron tests/test_record_parsers.py (HEM-7142T2): 126/88 mmHg, 84 bpm, 2026-06-17 19:35:30.
        let record = try #require(try Self.littleEndianLayout.read(Self.hex("6558541a331ade1800004c00ba00 0000")))
        #expect(record.values["systolic"] == 126)
        #expect(record.values["diastolic"] == 88)
        #expect(record.values["pulse"] == 84)
        #expect(record.time == DateTime(year: 2026, month: 6, day: 17, hours: 19, minutes: 35, seconds: 30))
        #expect(record.conditions.isEmpty)
        // … and 125/87 mmHg, 67 bpm, 2026-05-19 19:48:22.
        let other = try #require(try Self.littleEndianLayout.read(Self.hex("6457431a7316161c000046001900 0000")))
        #expect(other.values["systolic"] == 125)
        #expect(other.values["pulse"] == 67)
        #expect(other.time == DateTime(year: 2026, month: 5, day: 19, hours: 19, minutes: 48, seconds: 22))
    }

    @Test func flagBitsBecomeConditionsAndSecondsAreLimitedTo59() throws {
        // flags1 with bits 14 and 15 set; seconds field 63.
        var bytes = Self.hex("6558541a331ade1800004c00ba000000")
        bytes[5] |= 0xC0
        bytes[6] = (bytes[6] & 0xC0) | 0x3F
        let record = try #require(try Self.littleEndianLayout.read(bytes))
        #expect(record.conditions == ["irregularPulse", "bodyMovement"])
        #expect(record.time.seconds == 59)
    }

    @Test func emptySlotsGiveNothingAndImpossibleDatesAreErrors() throws {
        #expect(try Self.littleEndianLayout.read(Array(repeating: 0xFF, count: 16)) == nil)
        #expect(try Self.littleEndianLayout.read(Array(repeating: 0, count: 16)) == nil)
        // Month 0.
        var bytes = Self.hex("6558541a331ade1800004c00ba000000")
        bytes[5] &= 0xC3
        #expect(throws: OmronRecordError.self) { try Self.littleEndianLayout.read(bytes) }
        // 31 June.
        var june31 = Self.hex("6558541a331ade1800004c00ba000000")
        let flags = (0x1A33 & ~(0x1F << 5)) | (31 << 5)
        june31[4] = UInt8(flags & 0xFF)
        june31[5] = UInt8(flags >> 8)
        #expect(throws: OmronRecordError.invalidTime("2026 6 31 19 35 30")) { try Self.littleEndianLayout.read(june31) }
        #expect(throws: OmronRecordError.tooShort(expected: 8, actual: 5)) {
            try Self.littleEndianLayout.read([1, 2, 3, 4, 5])
        }
    }

    @Test func aLayoutNamesFieldsItDoesNotDefine() {
        let layout = OmronRecordLayout(
            fields: [.init(name: "systolic", at: 0, kind: .u8)],
            samples: [.init(type: .bloodPressureSystolic, field: "sys", unit: .millimetreOfMercury)]
        )
        #expect(layout.problem == "fields used but not defined: year, month, day, hour, minute, second, sys")
    }

    @Test func indexPointersGiveTheNextSlotInTheRing() {
        let block = Self.hex("0012 0063 8005 8000")
        let big = OmronMemoryMap.IndexPointers.Pointer(offset: 0, bigEndian: true)
        #expect(big.nextSlot(in: block, count: 100) == 0x12)
        #expect(OmronMemoryMap.IndexPointers.Pointer(offset: 2, bigEndian: true).nextSlot(in: block, count: 100) == 99)
        // Pointing at the last record written: the next slot follows it, and wraps.
        let last = OmronMemoryMap.IndexPointers.Pointer(offset: 2, bigEndian: true, pointsToNext: false)
        #expect(last.nextSlot(in: block, count: 100) == 0)
        // Little-endian 0x0012 read from "12 00"; a value past the ring is refused.
        let little = OmronMemoryMap.IndexPointers.Pointer(offset: 0, bigEndian: false)
        #expect(little.nextSlot(in: Self.hex("1200"), count: 100) == 0x12)
        #expect(little.nextSlot(in: Self.hex("7f00"), count: 100) == nil)
        #expect(little.nextSlot(in: Self.hex("12"), count: 100) == nil)
    }

    static let map = OmronMemoryMap(
        model: "TEST",
        users: [.init(start: 0x0098, count: 100), .init(start: 0x06D8, count: 100)],
        recordSize: 16,
        blockSize: 0x38,
        layout: littleEndianLayout
    )

    @Test func readsCoverWholeRecordsABlockAtATimeAndWrapAtTheEndOfTheRing() {
        let requests = Self.map.reads(user: 0, from: 97, count: 6)
        #expect(
            requests == [.init(user: 0, slot: 97, count: 3), .init(user: 0, slot: 0, count: 3)],
            "3 records per 0x38-byte block; slots 97…99, then 0…2"
        )
        #expect(Self.map.reads(user: 1, from: 0, count: 250).count == 34, "never more than the ring")
        #expect(Self.map.slot(at: 0x06D8 + 32) ?? (9, 9) == (1, 2))
        #expect(Self.map.slot(at: 0x06D8 + 33) == nil)
    }
}
