import SampleIngest
import Testing

/// The bind-keys file: one `ADDRESS KEY` line per device; a key never appears in a description or an error.
@Suite struct BindKeysTests {
    static let key = "0728974d657a4b60964c1b1677f35f7c"

    @Test func readsOneKeyPerAddressIgnoringCommentsAndBlankLines() throws {
        let keys = try BindKeys(
            text: """
                # Xiaomi S400 in the bathroom
                8c:d0:b2:f6:be:ef  \(Self.key)

                D0-7B-6F-27-D7-29\t653B1B10E1CB35E4AC5E60FA45F3BF29\r
                """
        )
        #expect(keys.addresses == ["8C:D0:B2:F6:BE:EF", "D0:7B:6F:27:D7:29"])
        #expect(keys["8C:D0:B2:F6:BE:EF"]?.first == 0x07)
        #expect(keys["d0:7b:6f:27:d7:29"]?.last == 0x29)
        #expect(keys["02:00:00:00:00:01"] == nil)
    }

    @Test(
        "refuses a bad line naming its number and never its key",
        arguments: [
            ("8C:D0:B2:F6:BE:EF", "a Bluetooth address and a 32-digit hex key"),
            ("8C:D0:B2:F6:BE \(key)", "not a Bluetooth address"),
            ("8C:D0:B2:F6:BE:EF \(key.dropLast())", "not 32 hex digits"),
            ("8C:D0:B2:F6:BE:EF \(key.dropLast())g", "not 32 hex digits"),
            ("8C:D0:B2:F6:BE:EF \(key)\n8c:d0:b2:f6:be:ef \(key)", "a second key"),
        ]
    )
    func refusesBadLines(text: String, reason: String) {
        #expect {
            _ = try BindKeys(text: "# keys\n" + text)
        } throws: { error in
            guard let error = error as? BindKeys.ParseError else { return false }
            return error.line >= 2 && error.description.contains(reason)
                && !error.description.lowercased().contains(Self.key.prefix(16))
        }
    }

    @Test func aDescriptionCountsKeysAndNeverShowsThem() throws {
        let keys = try BindKeys(text: "8C:D0:B2:F6:BE:EF \(Self.key)")
        #expect(keys.description == "1 bind key")
        #expect(!"\(keys)".contains(Self.key))
    }
}
