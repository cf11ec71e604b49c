import BridgeCore
import DeviceSessions
import Foundation
import GATTDecoding
import Testing

@Suite struct SessionTemplateTests {
    static let berlin = TimeZone(identifier: "Europe/Berlin")!
    /// 2026-11-24 12:30:15 in Berlin (11:30:15 UTC), a Tuesday.
    static let now = Date(timeIntervalSince1970: 1_795_519_815)

    func render(_ text: String, _ variables: SessionVariables = [:]) throws -> [UInt8] {
        try ByteTemplate(text).render(variables: variables, now: Self.now, timeZone: Self.berlin)
    }

    @Test func racpGreaterOrEqualWritesTheCursorPlusOneAsUInt16LittleEndian() throws {
        // 01 report stored records | 03 greater than or equal to | 01 filter: sequence number | 0x012C + 1
        #expect(try render("01 03 01 {lastSequence+1:u16}", ["lastSequence": .integer(300)]) == hex("01 03 01 2D 01"))
        #expect(try render("{n:u16be}{n:u8}", ["n": .integer(2)]) == hex("00 02 02"))
        #expect(try render("02 {code}", ["code": .bytes([0x34, 0x12])]) == hex("02 34 12"))
    }

    @Test func currentTimeAndDateTimeAreTheBridgeWallClockInItsZone() throws {
        // 2026 (EA 07) | 11 | 24 | 12:30:15 | Tuesday (2) | fractions 0 | adjust reason: manual update
        #expect(try render("{time:currentTime}") == hex("EA 07 0B 18 0C 1E 0F 02 00 01"))
        #expect(try render("{time:dateTime}") == hex("EA 07 0B 18 0C 1E 0F"))
        // 1_795_519_815 = 0x6B05_7547
        #expect(try render("{time:epoch}") == hex("47 75 05 6B"))
    }

    @Test func epochTimesCountFromTheGivenInstantInEitherByteOrder() throws {
        #expect(try render("{time:epochbe}") == hex("6B 05 75 47"))
        // 1_795_519_815 − 1_262_304_000 (2010-01-01T00:00:00Z) = 533_215_815 = 0x1FC8_3A47
        #expect(try render("{time:epoch@2010-01-01T00:00:00Z}") == hex("47 3A C8 1F"))
        #expect(try render("{time:epochbe@2010-01-01T00:00:00Z}") == hex("1F C8 3A 47"))
        // Midnight China time is 2000-01-01T16:00:00Z the day before: 1_795_519_815 − 946_656_000 = 0x3298_A247
        #expect(try render("{time:epoch@2000-01-01T00:00:00+08:00}") == hex("47 A2 98 32"))
    }

    @Test func anEpochBaseWithoutItsZoneOrOnAnotherLayoutIsRefused() {
        #expect(throws: SessionScriptError.self) { try ByteTemplate("{time:epoch@2010-01-01T00:00:00}") }
        #expect(throws: SessionScriptError.self) { try ByteTemplate("{time:dateTime@2010-01-01T00:00:00Z}") }
        #expect(throws: SessionScriptError.self) { try ByteTemplate("{time:epoch@2010-13-01T00:00:00Z}") }
    }

    @Test(
        "catalogued check values of \"123456789\"",
        arguments: [
            (Checksum.crc8, [UInt8(0xF4)]), (.crc8Maxim, [0xA1]), (.crc16, [0xB1, 0x29]),
            (.crc16BigEndian, [0x29, 0xB1]),
            (.crc16Modbus, [0x37, 0x4B]), (.xor, [0x31]), (.sum8, [0xDD]), (.sum8Negated, [0x23]),
        ]
    )
    func checksumCheckValues(checksum: Checksum, expected: [UInt8]) {
        #expect(checksum.bytes(of: Array("123456789".utf8)) == expected)
    }

    @Test func checksumCoversTheBytesBeforeItFromItsStartByte() throws {
        #expect(try render("AA 01 02 {xor@1}") == hex("AA 01 02 03"))
        #expect(try render("01 02 {sum8} {xor}") == hex("01 02 03 00"))
    }

    @Test func missingOrOversizedVariableIsAnErrorNamingIt() {
        #expect(throws: SessionScriptError.self) { try render("01 {lastSequence:u16}") }
        do {
            _ = try render("{n:u8}", ["n": .integer(300)])
            Issue.record("300 fits no byte")
        } catch {
            #expect("\(error)".contains("does not fit u8"))
        }
    }

    @Test("bad templates are refused", arguments: ["01 {x", "0", "{time:week}", "{1x}", "{n:u12}", "{n+x}", "zz"])
    func badTemplates(text: String) {
        #expect(throws: SessionScriptError.self) { try ByteTemplate(text) }
    }

    @Test func patternMatchesPrefixWithWildcards() throws {
        let pattern = try BytePattern("06 00 01 ??")
        #expect(pattern.matches(hex("06 00 01 01")))
        #expect(pattern.matches(hex("06 00 01 06 FF")))
        #expect(!pattern.matches(hex("06 00 02 01")))
        #expect(!pattern.matches(hex("06 00 01")))
        #expect(BytePattern.any.matches([]))
        #expect(throws: SessionScriptError.self) { try BytePattern("0G") }
    }

    @Test func conditionsCompareVariablesAndTreatMissingAsFalse() throws {
        let variables: SessionVariables = ["a": .integer(2), "b": .integer(5)]
        #expect(try SessionCondition("a").holds(for: variables))
        #expect(try SessionCondition("!c").holds(for: variables))
        #expect(try SessionCondition("a < b").holds(for: variables))
        #expect(try !SessionCondition("b <= 4").holds(for: variables))
        #expect(try !SessionCondition("c < b").holds(for: variables))
        #expect(try !SessionCondition("c >= b").holds(for: variables))
        #expect(throws: SessionScriptError.self) { try SessionCondition("a < 2x") }
    }

    @Test func bitTestHoldsWhenAFeatureFlagIsSet() throws {
        let variables: SessionVariables = ["features": .integer(0b0110)]
        #expect(try SessionCondition("features & 4").holds(for: variables))
        #expect(try !SessionCondition("features & 1").holds(for: variables))
        #expect(try !SessionCondition("missing & 4").holds(for: variables), "no value: false")
        #expect(throws: SessionScriptError.self) { try SessionCondition("features & ") }
    }

    @Test func captureKeepsTheLargestSequenceNumber() throws {
        let capture = try SessionCapture(variable: "received", spec: "u16@1", keep: .max)
        var variables: SessionVariables = [:]
        capture.apply(to: &variables, from: hex("02 05 00"))
        capture.apply(to: &variables, from: hex("02 03 00"))
        capture.apply(to: &variables, from: hex("02"))
        #expect(variables["received"] == .integer(5))
        #expect(throws: SessionScriptError.self) { try SessionCapture(variable: "x", spec: "u16") }
    }
}
