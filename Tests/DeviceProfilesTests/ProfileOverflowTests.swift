import BridgeCore
import BridgeFoundation
import DeviceProfiles
import DeviceSessions
import Foundation
import FrameDecoding
import Testing

/// Profiles that `profile lint` used to pass and that crashed `profile test` and `replay` (the probe's inputs):
/// the loader refuses every offset, length, addend and scale that could overflow, with its JSON path, and decoding
/// never traps on a field, pattern or checksum built in code with such a number.
@Suite struct ProfileOverflowTests {
    static func profile(frames: String = #"[{"name": "f"}]"#, session: String? = nil) -> String {
        """
        {"id": "p", "name": "P", "link": "gatt", "match": {"serviceUUIDs": ["180D"], "priority": 20},
         "characteristics": [{"uuid": "FFE1", "use": "notify", "frames": \(frames)},
                             {"uuid": "FFE3", "use": "write"}]\(session.map { #", "session": \#($0)"# } ?? "")}
        """
    }

    static func frame(_ body: String) -> String { profile(frames: #"[{"name": "f", \#(body)}]"#) }

    /// (what, the profile, the JSON path refused, a fragment of the message).
    static let refused: [(String, String, String, String)] = [
        (
            "field at 2^63-1", frame(#""fields": [{"name": "x", "at": 9223372036854775807, "type": "u16le"}]"#),
            "characteristics[0].frames[0].fields[0].at", "9223372036854775807 is out of range (-512…511)"
        ),
        (
            "field at -2^63", frame(#""fields": [{"name": "x", "at": -9223372036854775808, "type": "u8"}]"#),
            "characteristics[0].frames[0].fields[0].at", "out of range"
        ),
        (
            "field at 1e19", frame(#""fields": [{"name": "x", "at": 1e19, "type": "u8"}]"#),
            "characteristics[0].frames[0].fields[0].at", "out of range"
        ),
        (
            "bytes length 2^63-1",
            frame(#""fields": [{"name": "x", "at": 1, "type": "bytes", "length": 9223372036854775807}]"#),
            "characteristics[0].frames[0].fields[0].length", "out of range (0…512)"
        ),
        (
            "select offset 2^63-1", frame(#""select": {"prefix": "01", "offset": 9223372036854775807}"#),
            "characteristics[0].frames[0].select.offset", "9223372036854775807 is out of range (0…511)"
        ),
        (
            "select length 2^63-1", frame(#""select": {"length": {"min": 1, "max": 9223372036854775807}}"#),
            "characteristics[0].frames[0].select.length.max", "out of range (0…512)"
        ),
        (
            "checksum at 2^63-1", frame(#""checksum": {"kind": "sum8", "at": 9223372036854775807}"#),
            "characteristics[0].frames[0].checksum.at", "out of range (-512…511)"
        ),
        (
            "scale 1e308", frame(#""fields": [{"name": "x", "at": 0, "type": "u16le", "scale": 1e308}]"#),
            "characteristics[0].frames[0].fields[0].scale", "out of range"
        ),
        (
            "offset -1e308", frame(#""fields": [{"name": "x", "at": 0, "type": "u16le", "offset": -1e308}]"#),
            "characteristics[0].frames[0].fields[0].offset", "out of range"
        ),
        (
            "session capture u32@2^63-1",
            profile(session: #"{"steps": [{"read": "FFE1", "capture": {"n": "u32@9223372036854775807"}}]}"#),
            "session.steps[0].capture", "offset 9223372036854775807 is out of range (0…511)"
        ),
        (
            "template adding 2^63-1",
            profile(session: #"{"steps": [{"write": "FFE3", "value": "{n+9223372036854775807:u16}"}]}"#),
            "session.steps[0].value", "out of range"
        ),
    ]

    @Test("the loader refuses numbers that would overflow, naming the field", arguments: refused)
    func loaderRefuses(what: String, json: String, field: String, fragment: String) {
        do {
            _ = try DeviceProfile(json: json)
            Issue.record("\(what): accepted")
        } catch {
            #expect(error.field.hasPrefix(field), "\(what): \(error)")
            #expect(error.description.contains(fragment), "\(what): \(error)")
        }
    }

    @Test func valuesAtTheEdgesLoad() throws {
        _ = try DeviceProfile(
            json: Self.frame(
                #""select": {"prefix": "01", "offset": 511, "length": {"max": 512}}, "fields": [{"name": "x", "at": -512, "type": "u8", "scale": 1e9, "offset": -1e9}]"#
            )
        )
    }

    @Test(arguments: [Int.max, Int.min, Int.max - 1, -513])
    func aFieldBuiltInCodeWithAnyOffsetIsRefusedNotTrappedOn(at: Int) {
        let field = FrameField(name: "x", at: at, type: .u16le)
        #expect(throws: FrameDecodingError.self) { try field.read([1, 2, 3], frame: "f") }
        #expect(field.minimumValueLength > 3)
    }

    @Test func aScaleThatMakesAValueInfiniteRefusesThatValue() throws {
        var field = FrameField(name: "x", at: 0, type: .u16le)
        field.scale = 1e308
        do {
            let decoded = try field.read([0xFF, 0xFF], frame: "f")
            Issue.record("decoded \(decoded)")
        } catch {
            #expect(error.description.contains("field x"), "\(error)")
            #expect(error.description.contains("not a finite number"), "\(error)")
        }
        #expect(try field.read([1, 0], frame: "f").value?.number == 1e308, "a finite product is still read")
    }

    @Test func patternsAndChecksumsBuiltInCodeWithAnyPositionDoNotTrap() {
        #expect(!ValuePattern(prefix: try! BytePattern("01"), offset: Int.max).matches([1, 2, 3]))
        #expect(FrameChecksum(kind: .sum8, from: Int.min, to: Int.max, at: Int.max).problem(in: [1, 2]) != nil)
        #expect(FrameChecksum(kind: .sum8, from: 0, to: -2, at: Int.min).problem(in: [1, 2]) != nil)
    }

    @Test func aTemplateWhoseSumOverflowsThrowsInsteadOfTrapping() throws {
        let template = try ByteTemplate("01 {x+1:u16}")
        #expect(throws: SessionScriptError.self) {
            try template.render(variables: ["x": .integer(Int.max)], now: Date(), timeZone: .gmt)
        }
        #expect(throws: SessionScriptError.self) {
            try ByteTemplate("{x-1:u16}").render(variables: ["x": .integer(Int.min)], now: Date(), timeZone: .gmt)
        }
    }

    @Test func aCaptureReadsNoBytesPastAValueAtTheLargestOffset() throws {
        let capture = try SessionCapture(variable: "n", spec: "u32@511")
        #expect(capture.value(in: [1, 2, 3]) == nil)
        #expect(throws: SessionScriptError.self) { try SessionCapture(variable: "n", spec: "u32@512") }
        #expect(throws: SessionScriptError.self) { try SessionCapture(variable: "n", spec: "u32@-1") }
    }
}

/// The loader and the frame decoder together, over profiles whose every number is drawn from the edges (a
/// seeded sweep in the suite, beside the libFuzzer harness): whatever loads decodes any value without trapping,
/// and every value it decodes is finite.
@Suite struct ProfileNumberSweepTests {
    /// SplitMix64, so a failure names a seed that reproduces it.
    struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static let integers = [
        "0", "1", "-1", "2", "3", "511", "512", "513", "-512", "-513", "65535", "2147483648", "9223372036854775807",
        "-9223372036854775808", "1e19", "-1e19", "4.5",
    ]
    static let numbers = integers + ["1e308", "-1e308", "1e9", "-1e9", "1e-300", "0.01", "1e10"]

    static func profile(_ random: inout Generator) -> String {
        // Mostly ordinary values, so that some profiles load; an edge value one time in five.
        func integer() -> String {
            Int.random(in: 0..<5, using: &random) == 0
                ? integers.randomElement(using: &random)! : String(Int.random(in: 0...3, using: &random))
        }
        func number() -> String {
            Int.random(in: 0..<5, using: &random) == 0 ? numbers.randomElement(using: &random)! : "0.5"
        }
        let types = ["u8", "s16le", "u32be", "sfloat", "float", "bytes", "u24le", "bcd8"]
        let type = types.randomElement(using: &random)!
        let length = type == "bytes" ? #", "length": \#(integer())"# : ""
        let scale =
            ["sfloat", "float", "u8", "s16le", "u32be", "u24le"].contains(type)
            ? #", "scale": \#(number()), "offset": \#(number())"# : ""
        return """
            {"id": "p", "name": "P", "link": "gatt", "match": {"serviceUUIDs": ["180D"], "priority": 20},
             "characteristics": [{"uuid": "FFE1", "use": "notify", "frames": [{"name": "f",
               "select": {"prefix": "??", "offset": \(integer()), "length": {"min": \(integer()), "max": \(integer())}},
               "checksum": {"kind": "sum8", "from": \(integer()), "to": \(integer()), "at": \(integer())},
               "fields": [{"name": "x", "at": \(integer()), "type": "\(type)"\(length)\(scale)},
                          {"name": "y", "at": \(integer()), "type": "u8", "scale": \(number())}]}]},
               {"uuid": "FFE3", "use": "write"}],
             "session": {"steps": [{"read": "FFE1", "capture": {"n": "u32@\(integer())"}},
                                   {"write": "FFE3", "value": "01 {n+\(integer()):u16}"}]}}
            """
    }

    @Test(arguments: 0..<8)
    func whateverLoadsDecodesEveryValueWithoutTrapping(slice: Int) throws {
        var loaded = 0
        for seed in UInt64(slice * 500)..<UInt64(slice * 500 + 500) {
            var random = Generator(state: seed)
            let json = Self.profile(&random)
            guard let profile = try? DeviceProfile(json: json) else { continue }
            loaded += 1
            let frames = try #require(profile.characteristics.first?.frames)
            for _ in 0..<8 {
                let count = Int.random(in: 0...24, using: &random)
                let bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &random) }
                guard let (_, decoded) = try? frames.decode(bytes) else { continue }
                for field in decoded.fields {
                    if let number = field.value?.number { #expect(number.isFinite, "seed \(seed): \(field)") }
                }
            }
        }
        #expect(loaded > 0, "some profiles of every slice load")
    }
}
