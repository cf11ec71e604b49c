import Crypto
import _CryptoExtras

/// AES in CCM mode (counter with CBC-MAC, RFC 3610 and NIST SP 800-38C), built on the single-block AES
/// permutation of swift-crypto's `_CryptoExtras`, which has no CCM of its own.
///
/// Only what broadcast devices need: a 16-byte key, a 7–13-byte nonce, associated data shorter than 65,280 bytes,
/// a tag of 4–16 even bytes. Decryption checks the tag before any plaintext is returned, so a wrong key or a
/// tampered value yields an error and never bytes.
/// - SeeAlso: RFC 3610 §2; NIST SP 800-38C §6 and Appendix A.
public struct AESCCM: Sendable {
    /// Why a value was not encrypted or decrypted.
    public enum Failure: Error, Sendable, Hashable, CustomStringConvertible {
        /// The key is not 16, 24 or 32 bytes long.
        case keySize(Int)
        /// The nonce is not 7…13 bytes long.
        case nonceSize(Int)
        /// The tag length is not an even number in 4…16.
        case tagSize(Int)
        /// The message or the associated data is longer than this type reads.
        case tooLong(Int)
        /// The ciphertext is shorter than its tag.
        case truncated(length: Int, tag: Int)
        /// The tag does not match: a wrong key, or a value changed on the way.
        case authenticationFailed

        public var description: String {
            switch self {
            case .keySize(let size): "an AES key has 16, 24 or 32 bytes, not \(size)"
            case .nonceSize(let size): "a CCM nonce has 7 to 13 bytes, not \(size)"
            case .tagSize(let size): "a CCM tag has 4, 6, 8, 10, 12, 14 or 16 bytes, not \(size)"
            case .tooLong(let size): "\(size) bytes are more than this CCM reads"
            case .truncated(let length, let tag): "\(length) bytes are shorter than the \(tag)-byte tag"
            case .authenticationFailed: "the authentication tag does not match (wrong key or changed bytes)"
            }
        }
    }

    private let key: SymmetricKey
    /// Bytes of the authentication tag (M in RFC 3610).
    public let tagLength: Int

    /// - Throws: ``Failure/keySize(_:)``, ``Failure/tagSize(_:)``.
    public init(key: [UInt8], tagLength: Int) throws(Failure) {
        guard [16, 24, 32].contains(key.count) else { throw .keySize(key.count) }
        guard (4...16).contains(tagLength), tagLength % 2 == 0 else { throw .tagSize(tagLength) }
        self.key = SymmetricKey(data: key)
        self.tagLength = tagLength
    }

    /// Encrypts `plaintext`: the ciphertext followed by the tag.
    /// - Throws: ``Failure`` for a nonce or lengths this type does not take.
    public func seal(_ plaintext: [UInt8], nonce: [UInt8], associatedData: [UInt8] = []) throws(Failure) -> [UInt8] {
        try check(nonce: nonce, message: plaintext.count, associatedData: associatedData.count)
        let mac = try tag(plaintext, nonce: nonce, associatedData: associatedData)
        var output = try counterMode(plaintext, nonce: nonce)
        let first = try block(counter: 0, nonce: nonce)
        output += (0..<tagLength).map { mac[$0] ^ first[$0] }
        return output
    }

    /// Decrypts `ciphertext` (the encrypted bytes followed by the tag) and checks the tag.
    /// - Throws: ``Failure/authenticationFailed`` when the tag does not match; other ``Failure``s for a nonce or
    ///   lengths this type does not take.
    public func open(_ ciphertext: [UInt8], nonce: [UInt8], associatedData: [UInt8] = []) throws(Failure) -> [UInt8] {
        guard ciphertext.count >= tagLength else { throw .truncated(length: ciphertext.count, tag: tagLength) }
        let body = Array(ciphertext.dropLast(tagLength))
        try check(nonce: nonce, message: body.count, associatedData: associatedData.count)
        let plaintext = try counterMode(body, nonce: nonce)
        let first = try block(counter: 0, nonce: nonce)
        let mac = try tag(plaintext, nonce: nonce, associatedData: associatedData)
        let received = ciphertext.suffix(tagLength)
        var difference: UInt8 = 0
        for (index, byte) in received.enumerated() { difference |= byte ^ mac[index] ^ first[index] }
        guard difference == 0 else { throw .authenticationFailed }
        return plaintext
    }

    // MARK: - CCM

    /// L: the bytes of the message-length field, 15 − nonce length.
    private static func lengthBytes(nonce: [UInt8]) -> Int { 15 - nonce.count }

    private func check(nonce: [UInt8], message: Int, associatedData: Int) throws(Failure) {
        guard (7...13).contains(nonce.count) else { throw .nonceSize(nonce.count) }
        let lengthBytes = Self.lengthBytes(nonce: nonce)
        // 2^(8L) bytes at most; L is at least 2, and no broadcast value comes near 65,536 bytes.
        if lengthBytes < 8, message >= 1 << (8 * lengthBytes) { throw .tooLong(message) }
        guard associatedData < 0xFF00 else { throw .tooLong(associatedData) }
    }

    /// The AES permutation of one 16-byte block.
    private func encrypt(_ block: [UInt8]) throws(Failure) -> [UInt8] {
        var block = block
        do {
            try AES.permute(&block, key: key)
        } catch {
            // Only a key or block of the wrong size fails, which init and the callers rule out.
            throw .keySize(key.bitCount / 8)
        }
        return block
    }

    /// A_i: flags (L − 1), the nonce, the counter `i` in L bytes, big-endian.
    private func block(counter: Int, nonce: [UInt8]) throws(Failure) -> [UInt8] {
        let lengthBytes = Self.lengthBytes(nonce: nonce)
        var block = [UInt8(lengthBytes - 1)] + nonce
        block += (0..<lengthBytes).reversed().map { UInt8(truncatingIfNeeded: counter >> (8 * $0)) }
        return try encrypt(block)
    }

    /// The message XORed with the key stream S_1, S_2, …
    private func counterMode(_ message: [UInt8], nonce: [UInt8]) throws(Failure) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(message.count)
        var counter = 1
        var offset = 0
        while offset < message.count {
            let stream = try block(counter: counter, nonce: nonce)
            for index in 0..<min(16, message.count - offset) { output.append(message[offset + index] ^ stream[index]) }
            offset += 16
            counter += 1
        }
        return output
    }

    /// The CBC-MAC T (before it is encrypted with S_0) over B_0, the encoded associated data and the message.
    private func tag(_ message: [UInt8], nonce: [UInt8], associatedData: [UInt8]) throws(Failure) -> [UInt8] {
        let lengthBytes = Self.lengthBytes(nonce: nonce)
        let flags = (associatedData.isEmpty ? 0 : 0x40) | ((tagLength - 2) / 2) << 3 | (lengthBytes - 1)
        var input = [UInt8(flags)] + nonce
        input += (0..<lengthBytes).reversed().map { UInt8(truncatingIfNeeded: message.count >> (8 * $0)) }
        if !associatedData.isEmpty {
            input += [UInt8(associatedData.count >> 8), UInt8(truncatingIfNeeded: associatedData.count)]
            input += associatedData
            input += [UInt8](repeating: 0, count: (16 - input.count % 16) % 16)
        }
        input += message
        input += [UInt8](repeating: 0, count: (16 - input.count % 16) % 16)
        var chain = [UInt8](repeating: 0, count: 16)
        var offset = 0
        while offset < input.count {
            for index in 0..<16 { chain[index] ^= input[offset + index] }
            chain = try encrypt(chain)
            offset += 16
        }
        return Array(chain.prefix(tagLength))
    }
}
