import BridgeFoundation
import Testing

@Suite struct JSONParserTests {
    @Test func keepsMemberOrderAndNumberKinds() throws {
        let value = try JSONValue.parse(#"{"b": 1, "a": 2.5, "c": [true, null, "x\u00e9"]}"#)
        #expect(value.objectValue?.keys == ["b", "a", "c"])
        #expect(value.objectValue?["b"] == .int(1))
        #expect(value.objectValue?["a"] == .double(2.5))
        #expect(value.objectValue?["c"] == .array([.bool(true), .null, .string("xé")]))
    }

    @Test func reportsLineAndColumn() {
        let text = "{\n  \"a\": 1,\n  \"b\": tru\n}"
        #expect {
            try JSONValue.parse(text)
        } throws: { error in
            guard let error = error as? JSONValue.ParseError else { return false }
            return error.line == 3 && error.column == 8
                && error.description.hasPrefix("invalid JSON at line 3, column 8")
        }
    }

    @Test func oneLineTextsNameOnlyTheColumn() {
        #expect {
            try JSONValue.parse(#"{"a": }"#)
        } throws: { error in
            (error as? JSONValue.ParseError)?.description
                == "invalid JSON at column 7: unexpected character '}', expected a value"
        }
    }

    @Test func columnsCountCharactersNotBytes() {
        #expect {
            try JSONValue.parse(#"["é", x]"#)
        } throws: { error in
            (error as? JSONValue.ParseError)?.column == 7
        }
    }

    @Test func duplicateKeysAreRefusedOnlyWhenStrict() throws {
        let text = #"{"a": 1, "a": 2}"#
        #expect(try JSONValue.parse(text).objectValue?["a"] == .int(2))
        #expect {
            try JSONValue.parse(text, options: .strict)
        } throws: { error in
            guard let error = error as? JSONValue.ParseError else { return false }
            return error.message == "duplicate key \"a\"" && error.column == 10
        }
    }

    @Test func skipsAByteOrderMark() throws {
        #expect(try JSONValue.parse([0xEF, 0xBB, 0xBF] + Array("[1]".utf8)) == .array([.int(1)]))
    }

    @Test func limitsNesting() {
        let deep = String(repeating: "[", count: 65) + String(repeating: "]", count: 65)
        #expect(throws: JSONValue.ParseError.self) { try JSONValue.parse(deep, options: .strict) }
        #expect(throws: Never.self) { try JSONValue.parse(deep) }
    }

    @Test func serialisesAndEscapes() {
        var out = ""
        JSONValue.writeString("a\"b\\c\n\u{01}é", into: &out)
        #expect(out == #""a\"b\\c\n\u0001é""#)
        let value: JSONValue = .object(["k": .array([.int(1), .double(0.5), .null])])
        #expect(value.serialized() == #"{"k": [1, 0.5, null]}"#)
    }

    @Test(arguments: [
        #"{"a": [1, {"b": "c"}], "d": -1.5e3, "e": "\ud83d\ude00"}"#, "[]", "{}", #""\/\b\f\r\t""#,
    ])
    func roundTrips(_ text: String) throws {
        let value = try JSONValue.parse(text)
        #expect(try JSONValue.parse(value.serialized()) == value)
        #expect(try JSONValue.parse(value.serialized(pretty: true)) == value)
    }
}
