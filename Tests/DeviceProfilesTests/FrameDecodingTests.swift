import BridgeCore
import BridgeFoundation
import Foundation
import FrameDecoding
import GATTDecoding
import Testing

/// The frame language's decoder on its own: fields, special values, times, checksums, selection and errors.
@Suite struct FrameDecodingTests {
    static func frames(_ json: String) throws -> FrameSet {
        try FrameSet(json: JSONReader(try JSONValue.parse(json), path: JSONPath().appending("frames")))
    }

    static func frame(_ fields: String, extra: String = "") throws -> FrameSet {
        try frames(#"[{"name": "f", "fields": [\#(fields)]\#(extra)}]"#)
    }

    static func value(_ set: FrameSet, _ hex: String, field: String) throws -> DecodedField? {
        try #require(try set.decode(Hex.bytes(hex))).decoded.field(field)
    }

    @Test(
        "integer types read their byte order and sign",
        arguments: [
            ("u8", "FE", 254.0), ("s8", "FE", -2), ("u16le", "34 12", 0x1234), ("u16be", "12 34", 0x1234),
            ("s16le", "FE FF", -2), ("s16be", "FF FE", -2), ("u24le", "56 34 12", 0x123456),
            ("u24be", "12 34 56", 0x123456), ("u32le", "78 56 34 12", 0x1234_5678),
            ("u32be", "12 34 56 78", 0x1234_5678),
            ("s32le", "FE FF FF FF", -2), ("s32be", "FF FF FF FE", -2), ("bcd8", "42", 42), ("sfloat", "6D F1", 36.5),
            ("float", "6D 01 00 FF", 36.5),
        ]
    )
    func integerTypes(type: String, hex: String, expected: Double) throws {
        let set = try Self.frame(#"{"name": "x", "at": 0, "type": "\#(type)"}"#)
        let number = try #require(try Self.value(set, hex, field: "x")?.value?.number)
        #expect(abs(number - expected) < 1e-9)
    }

    @Test func bitsScaleOffsetAndLookupApplyInOrder() throws {
        let set = try Self.frame(
            #"""
            {"name": "stable", "at": 0, "type": "u8", "bits": "5"},
            {"name": "unit", "at": 0, "type": "u8", "bits": "0-1", "lookup": {"0": "kg", "1": "lb", "2": "st"}},
            {"name": "weight", "at": 1, "type": "u16be", "scale": 0.01, "offset": 1},
            {"name": "negative", "at": -1, "type": "s8"}
            """#
        )
        let decoded = try #require(try set.decode(Hex.bytes("21 1C 43 F6"))).decoded
        #expect(decoded.field("stable")?.value?.number == 1)
        #expect(decoded.field("unit")?.value?.text == "lb")
        #expect(decoded.field("unit")?.raw == 1)
        #expect(decoded.field("weight")?.value?.number.map { abs($0 - 73.35) < 1e-9 } == true)
        #expect(decoded.field("negative")?.value?.number == -10, "a negative at counts from the end")
    }

    @Test func absentAndOutOfRangeRawValuesGiveNoValue() throws {
        let set = try Self.frame(
            #"{"name": "t", "at": 0, "type": "s16le", "absent": [32767], "outOfRange": {"low": [32766], "high": [32765]}}"#
        )
        let absent = try #require(try Self.value(set, "FF 7F", field: "t"))
        #expect(absent.value == nil)
        #expect(absent.comparator == nil)
        #expect(absent.note?.contains("not measured") == true)
        #expect(try Self.value(set, "FE 7F", field: "t")?.comparator == .lessThan)
        #expect(try Self.value(set, "FD 7F", field: "t")?.comparator == .greaterThan)
        #expect(try Self.value(set, "FC 7F", field: "t")?.value?.number == 32764)
    }

    @Test func sfloatInfinitiesAreOutOfRangeAndNaNIsAbsent() throws {
        let set = try Self.frame(#"{"name": "g", "at": 0, "type": "sfloat"}"#)
        #expect(try Self.value(set, "FE 07", field: "g")?.comparator == .greaterThan)
        #expect(try Self.value(set, "02 08", field: "g")?.comparator == .lessThan)
        #expect(try Self.value(set, "FF 07", field: "g")?.value == nil)
    }

    @Test(
        "time types give the device's wall clock",
        arguments: [
            ("dateTime", "E8 07 03 0F 07 1E 00", "2024-03-15T07:30:00"),
            ("bcdDateTime", "24 03 15 07 30 00", "2024-03-15T07:30:00"),
            ("ymdhms", "18 03 0F 07 1E 00", "2024-03-15T07:30:00"),
            // 2024-03-15T07:30:00 is 763_803_000 s after 2000-01-01T00:00 (wall clock).
            ("epoch2000le", "78 B5 86 2D", "2024-03-15T07:30:00"),
            ("epoch2000be", "2D 86 B5 78", "2024-03-15T07:30:00"),
        ]
    )
    func timeTypes(type: String, hex: String, expected: String) throws {
        let set = try Self.frame(#"{"name": "when", "at": 0, "type": "\#(type)"}"#)
        guard case .time(let time)? = try Self.value(set, hex, field: "when")?.value else {
            Issue.record("no time")
            return
        }
        #expect(time.description == expected)
    }

    @Test func epochSecondsAreAnInstant() throws {
        let set = try Self.frame(#"{"name": "when", "at": 0, "type": "epoch32le"}"#)
        // 1_710_487_800 = 2024-03-15T07:30:00Z
        guard case .instant(let instant)? = try Self.value(set, "F8 F8 F3 65", field: "when")?.value else {
            Issue.record("no instant")
            return
        }
        #expect(instant.timeIntervalSince1970 == 1_710_487_800)
    }

    @Test func anEpochFieldCountsFromItsEpochInstant() throws {
        let set = try Self.frame(
            #"{"name": "when", "at": 0, "type": "epoch32le", "epoch": "2000-01-01T00:00:00+08:00"}"#
        )
        // 763_831_800 s after 2000-01-01T00:00:00+08:00 (946_656_000) = 1_710_487_800 = 2024-03-15T07:30:00Z
        guard case .instant(let instant)? = try Self.value(set, "F8 25 87 2D", field: "when")?.value else {
            Issue.record("no instant")
            return
        }
        #expect(instant.timeIntervalSince1970 == 1_710_487_800)
        let since2010 = try Self.frame(
            #"{"name": "when", "at": 0, "type": "epoch32be", "epoch": "2010-01-01T00:00:00Z"}"#
        )
        guard case .instant(let later)? = try Self.value(since2010, "00 00 00 3C", field: "when")?.value else {
            Issue.record("no instant")
            return
        }
        #expect(later.timeIntervalSince1970 == 1_262_304_060)
    }

    @Test func anEpochWithoutItsZoneOrOnAnotherTypeIsRefused() {
        #expect(throws: JSONReadError.self) {
            try Self.frame(#"{"name": "when", "at": 0, "type": "epoch32le", "epoch": "2010-01-01T00:00:00"}"#)
        }
        #expect(throws: JSONReadError.self) {
            try Self.frame(#"{"name": "when", "at": 0, "type": "epoch2000le", "epoch": "2010-01-01T00:00:00Z"}"#)
        }
    }

    @Test func anInvalidBCDTimeRejectsTheValueNamingTheField() throws {
        let set = try Self.frame(#"{"name": "when", "at": 0, "type": "bcdDateTime"}"#)
        #expect(throws: FrameDecodingError(frame: "f", message: "field when: byte 1a is not BCD")) {
            try set.decode(Hex.bytes("24 1A 15 07 30 00"))
        }
        #expect(
            throws: FrameDecodingError(
                frame: "f",
                message: "field when: 2024-13-15T07:30:00 is not a valid date and time"
            )
        ) {
            try set.decode(Hex.bytes("24 13 15 07 30 00"))
        }
    }

    @Test func aFieldBeyondTheValueRejectsItWithOffsetAndLength() throws {
        let set = try Self.frame(#"{"name": "w", "at": 3, "type": "u16le"}"#)
        #expect(
            throws: FrameDecodingError(
                frame: "f",
                message: "field w (u16le at 3) needs 2 byte(s) at offset 3 but the value has 4"
            )
        ) { try set.decode(Hex.bytes("00 01 02 03")) }
    }

    @Test func checksumMismatchRejectsTheFrameSayingWhatDiffered() throws {
        let set = try Self.frame(
            #"{"name": "w", "at": 1, "type": "u8"}"#,
            extra: #", "checksum": {"kind": "sum8"}"#
        )
        #expect(try set.decode(Hex.bytes("01 02 03")) != nil)
        #expect(
            throws: FrameDecodingError(frame: "f", message: "sum8 checksum is 04, computed 03 over bytes 0…1")
        ) { try set.decode(Hex.bytes("01 02 04")) }
    }

    @Test func theFirstFrameWhoseSelectHoldsDecodesAndOthersAreSkipped() throws {
        let set = try Self.frames(
            #"""
            [{"name": "weight", "select": {"prefix": "10 ??", "mask": "F0 00", "length": {"min": 3}}, "fields": []},
             {"name": "status", "select": {"prefix": "20", "when": "flag == 1"},
              "fields": [{"name": "flag", "at": 1, "type": "u8"}]},
             {"name": "catchAll", "fields": []}]
            """#
        )
        #expect(try set.decode(Hex.bytes("1F 00 00"))?.frame.name == "weight")
        #expect(try set.decode(Hex.bytes("1F 00"))?.frame.name == "catchAll", "too short for weight")
        #expect(try set.decode(Hex.bytes("20 01"))?.frame.name == "status")
        #expect(try set.decode(Hex.bytes("20 00"))?.frame.name == "catchAll", "select.when does not hold")
        let onlyWeight = try Self.frames(#"[{"name": "weight", "select": {"prefix": "10"}, "fields": []}]"#)
        #expect(try onlyWeight.decode(Hex.bytes("99")) == nil, "a value no frame selects is not an error")
    }

    @Test func finalConditionsMarkIntermediateFrames() throws {
        let set = try Self.frame(
            #"{"name": "stable", "at": 0, "type": "u8", "bits": "5"}, {"name": "w", "at": 1, "type": "u8", "absent": [255]}"#,
            extra: #", "final": ["stable", "w < 200"]"#
        )
        #expect(try set.decode(Hex.bytes("20 10"))?.decoded.isFinal == true)
        #expect(try set.decode(Hex.bytes("00 10"))?.decoded.isFinal == false)
        #expect(
            try set.decode(Hex.bytes("20 FF"))?.decoded.isFinal == false,
            "a field without value fails a comparison"
        )
    }

    @Test(
        "frame errors name the JSON path and the problem",
        arguments: [
            (#"[]"#, "frames: give at least one frame"),
            (#"[{"name": "a", "colour": 1}]"#, "frames[0].colour: unknown key"),
            (#"[{"name": "a"}, {"name": "a"}]"#, "frames[1]: frame name a is used twice"),
            (
                #"[{"name": "a", "fields": [{"name": "x", "at": 0, "type": "u12"}]}]"#,
                "frames[0].fields[0].type: 'u12' is not a field type"
            ),
            (
                #"[{"name": "a", "fields": [{"name": "x", "at": 0, "type": "u8", "bits": "3-9"}]}]"#,
                "frames[0].fields[0].bits: expected a bit"
            ),
            (
                #"[{"name": "a", "fields": [{"name": "x", "at": 0, "type": "bytes"}]}]"#,
                "frames[0].fields[0].length: a bytes field needs its length"
            ),
            (
                #"[{"name": "a", "fields": [{"name": "x", "at": 0, "type": "dateTime", "scale": 2}]}]"#,
                "frames[0].fields[0].scale: scale applies to integer fields"
            ),
            (
                #"[{"name": "a", "fields": [{"name": "x", "at": 0, "type": "u8", "lookup": {"one": "kg"}}]}]"#,
                "frames[0].fields[0].lookup.one: lookup keys are raw integers"
            ),
            (
                #"[{"name": "a", "fields": [{"name": "x", "at": 0, "type": "u8"}], "final": ["y"]}]"#,
                "frames[0].final: no field 'y' in frame a"
            ),
            (
                #"[{"name": "a", "fields": [{"name": "x", "at": 0, "type": "u8"}], "final": ["x <"]}]"#,
                "frames[0].final[0]:"
            ),
            (
                #"[{"name": "a", "fields": [{"name": "x", "at": 0, "type": "u8"}], "time": "x"}]"#,
                "frames[0].time: field x is not a time type"
            ),
            (
                #"[{"name": "a", "fields": [{"name": "x", "at": 0, "type": "u8"}], "user": "z"}]"#,
                "frames[0].user: no field 'z'"
            ),
            (
                #"[{"name": "a", "fields": [{"name": "x", "at": 0, "type": "u8"}], "samples": [{"type": "bodyMass", "field": "x", "unit": "bpm"}]}]"#,
                "frames[0].samples[0].unit: bpm cannot express body mass"
            ),
            (
                #"[{"name": "a", "fields": [{"name": "x", "at": 0, "type": "u8"}], "samples": [{"type": "mass", "field": "x", "unit": "kg"}]}]"#,
                "frames[0].samples[0].type: 'mass' is not a quantity type"
            ),
            (
                #"[{"name": "a", "fields": [{"name": "x", "at": 0, "type": "u8"}], "samples": [{"type": "bodyMass", "field": "x"}]}]"#,
                "frames[0].samples[0].unit: give unit or unitField"
            ),
            (
                #"[{"name": "a", "fields": [{"name": "x", "at": 0, "type": "u8"}], "samples": [{"type": "bodyMass", "field": "b.x", "unit": "kg"}]}]"#,
                "frames[0].samples[0]: 'b.x' names frame b, but this frame merges with none"
            ),
            (#"[{"name": "a", "checksum": {"kind": "md5"}}]"#, "frames[0].checksum.kind: 'md5' is not a checksum"),
            (#"[{"name": "a", "merge": {"with": "b", "window": 0}}]"#, "frames[0].merge.window: expected 0 < window"),
        ]
    )
    func frameErrorsNameThePath(json: String, message: String) {
        #expect {
            try Self.frames(json)
        } throws: { error in
            guard let error = error as? JSONReadError else { return false }
            let matched = error.description.hasPrefix(message)
            if !matched { Issue.record("got: \(error.description)") }
            return matched
        }
    }

    @Test func aMergePartnerMustExistInTheProfile() throws {
        let set = try Self.frames(#"[{"name": "a", "merge": {"with": "b", "window": 5}}]"#)
        #expect(
            throws: JSONReadError(
                path: JSONPath().appending("frames").appending(index: 0).appending("merge").appending("with"),
                message: "no other frame of the profile is named b"
            )
        ) { try FrameSet.checkMerges([(set, JSONPath().appending("frames"))]) }
    }
}
