import BridgeFoundation
import FrameDecoding
import Testing

/// AES-CCM against the published test vectors: NIST SP 800-38C Appendix C (examples 1–3) and RFC 3610 §8
/// (packet vector #1).
@Suite struct AESCCMTests {
    struct Vector: Sendable, CustomStringConvertible {
        var name: String
        var key: String
        var nonce: String
        var associatedData: String
        var plaintext: String
        var tagLength: Int
        /// Ciphertext followed by the tag.
        var sealed: String

        var description: String { name }
    }

    static let vectors: [Vector] = [
        Vector(
            name: "SP 800-38C example 1",
            key: "40414243 44454647 48494A4B 4C4D4E4F",
            nonce: "10111213 141516",
            associatedData: "00010203 04050607",
            plaintext: "20212223",
            tagLength: 4,
            sealed: "7162015B 4DAC255D"
        ),
        Vector(
            name: "SP 800-38C example 2",
            key: "40414243 44454647 48494A4B 4C4D4E4F",
            nonce: "10111213 14151617",
            associatedData: "00010203 04050607 08090A0B 0C0D0E0F",
            plaintext: "20212223 24252627 28292A2B 2C2D2E2F",
            tagLength: 6,
            sealed: "D2A1F0E0 51EA5F62 081A7792 073D593D 1FC64FBF ACCD"
        ),
        Vector(
            name: "SP 800-38C example 3",
            key: "40414243 44454647 48494A4B 4C4D4E4F",
            nonce: "10111213 14151617 18191A1B",
            associatedData: "00010203 04050607 08090A0B 0C0D0E0F 10111213",
            plaintext: "20212223 24252627 28292A2B 2C2D2E2F 30313233 34353637",
            tagLength: 8,
            sealed: "E3B201A9 F5B71A7A 9B1CEAEC CD97E70B 6176AAD9 A4428AA5 484392FB C1B09951"
        ),
        Vector(
            name: "RFC 3610 packet vector #1",
            key: "C0C1C2C3 C4C5C6C7 C8C9CACB CCCDCECF",
            nonce: "00000003 020100A0 A1A2A3A4 A5",
            associatedData: "00010203 04050607",
            plaintext: "08090A0B 0C0D0E0F 10111213 14151617 18191A1B 1C1D1E",
            tagLength: 8,
            sealed: "588C979A 61C663D2 F066D0C2 C0F98980 6D5F6B61 DAC38417 E8D12CFD F926E0"
        ),
    ]

    static func bytes(_ text: String) throws -> [UInt8] { try Hex.bytes(String(text.filter { $0 != " " })) }

    @Test("seals each published vector to its ciphertext and tag", arguments: vectors)
    func sealsPublishedVectors(_ vector: Vector) throws {
        let cipher = try AESCCM(key: Self.bytes(vector.key), tagLength: vector.tagLength)
        let sealed = try cipher.seal(
            Self.bytes(vector.plaintext),
            nonce: Self.bytes(vector.nonce),
            associatedData: Self.bytes(vector.associatedData)
        )
        #expect(sealed == (try Self.bytes(vector.sealed)))
    }

    @Test("opens each published vector to its plaintext", arguments: vectors)
    func opensPublishedVectors(_ vector: Vector) throws {
        let cipher = try AESCCM(key: Self.bytes(vector.key), tagLength: vector.tagLength)
        let opened = try cipher.open(
            Self.bytes(vector.sealed),
            nonce: Self.bytes(vector.nonce),
            associatedData: Self.bytes(vector.associatedData)
        )
        #expect(opened == (try Self.bytes(vector.plaintext)))
    }

    @Test("refuses every single-bit change of ciphertext, tag or associated data", arguments: vectors)
    func refusesEveryChangedBit(_ vector: Vector) throws {
        let cipher = try AESCCM(key: Self.bytes(vector.key), tagLength: vector.tagLength)
        let sealed = try Self.bytes(vector.sealed)
        let nonce = try Self.bytes(vector.nonce)
        let associatedData = try Self.bytes(vector.associatedData)
        for index in sealed.indices {
            var changed = sealed
            changed[index] ^= 0x01
            #expect(throws: AESCCM.Failure.authenticationFailed) {
                try cipher.open(changed, nonce: nonce, associatedData: associatedData)
            }
        }
        for index in associatedData.indices {
            var changed = associatedData
            changed[index] ^= 0x80
            #expect(throws: AESCCM.Failure.authenticationFailed) {
                try cipher.open(sealed, nonce: nonce, associatedData: changed)
            }
        }
    }

    @Test("refuses a wrong key without returning bytes")
    func refusesWrongKey() throws {
        let vector = Self.vectors[2]
        var key = try Self.bytes(vector.key)
        key[15] ^= 0x01
        let cipher = try AESCCM(key: key, tagLength: vector.tagLength)
        #expect(throws: AESCCM.Failure.authenticationFailed) {
            try cipher.open(
                Self.bytes(vector.sealed),
                nonce: Self.bytes(vector.nonce),
                associatedData: Self.bytes(vector.associatedData)
            )
        }
    }

    @Test("refuses sizes CCM does not define")
    func refusesBadSizes() throws {
        #expect(throws: AESCCM.Failure.keySize(15)) { try AESCCM(key: [UInt8](repeating: 0, count: 15), tagLength: 4) }
        #expect(throws: AESCCM.Failure.tagSize(5)) { try AESCCM(key: [UInt8](repeating: 0, count: 16), tagLength: 5) }
        let cipher = try AESCCM(key: [UInt8](repeating: 0, count: 16), tagLength: 4)
        #expect(throws: AESCCM.Failure.nonceSize(6)) { try cipher.seal([1], nonce: [UInt8](repeating: 0, count: 6)) }
        #expect(throws: AESCCM.Failure.truncated(length: 3, tag: 4)) {
            try cipher.open([1, 2, 3], nonce: [UInt8](repeating: 0, count: 12))
        }
    }
}
