import Crypto
import Foundation
import _CryptoExtras

/// The cipher of the Eufy P2 handshake: AES-128-CBC with PKCS #7 padding under the MD5 of the scale's address
/// (its 12 hexadecimal digits in upper case, without separators), with the 16 ASCII characters "0000000000000000"
/// as the IV (not 16 zero bytes). A message travels as the ASCII of its ciphertext's base64.
///
/// - SeeAlso: bdr99/eufylife-ble-client `auth_handler.py` (`generate_key`, `IV`) and `util.py`
///   (`encrypt_aes128cbc`); ble-scale-sync `src/scales/eufy-p2.ts` (`EufyAuthHandler`).
public struct EufyCipher: Sendable {
    static let iv = [UInt8](repeating: 0x30, count: 16)

    private let key: SymmetricKey

    /// - Parameter address: the scale's Bluetooth address, with or without `:` or `-` separators, any case.
    /// - Throws: ``EufyHandshakeError/badAddress(_:)``.
    public init(address: String) throws(EufyHandshakeError) {
        let digits = address.uppercased().filter { $0 != ":" && $0 != "-" }
        guard digits.count == 12, digits.allSatisfy(\.isHexDigit) else { throw .badAddress(address) }
        key = SymmetricKey(data: Array(Insecure.MD5.hash(data: Array(digits.utf8))))
    }

    /// `text` encrypted, as the ASCII bytes of the ciphertext's base64.
    public func seal(_ text: String) -> [UInt8] {
        // Encryption with a 16-byte key and a 16-byte IV cannot fail.
        let ciphertext = (try? AES._CBC.encrypt(Array(text.utf8), using: key, iv: Self.cbcIV())) ?? Data()
        return Array(ciphertext.base64EncodedString().utf8)
    }

    /// The text a message of `prefix` carries: base64-decoded, decrypted, padding checked, read as UTF-8.
    /// - Throws: ``EufyHandshakeError/undecryptable(prefix:)`` for anything that is not such a message.
    public func open(_ base64: [UInt8], prefix: UInt8) throws(EufyHandshakeError) -> String {
        guard let ciphertext = Data(base64Encoded: Data(base64)), !ciphertext.isEmpty,
            let plaintext = try? AES._CBC.decrypt(ciphertext, using: key, iv: Self.cbcIV()),
            let text = String(bytes: plaintext, encoding: .utf8)
        else { throw .undecryptable(prefix: prefix) }
        return text
    }

    private static func cbcIV() throws -> AES._CBC.IV { try AES._CBC.IV(ivBytes: iv) }
}
