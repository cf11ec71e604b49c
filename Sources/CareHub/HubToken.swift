import Crypto
import Foundation

/// A bridge's credential: 32 random bytes as hex with a `cbh_` prefix, shown once at enrolment. The hub keeps only
/// its SHA-256 (``hash``), so a copy of the database gives no one a working token.
public struct HubToken: Sendable, Hashable {
    public var text: String

    public init(text: String) {
        self.text = text
    }

    /// A new random token.
    public static func generate() -> HubToken {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return HubToken(text: "cbh_" + bytes.map { String(format: "%02x", $0) }.joined())
    }

    /// The SHA-256 of the token, hex: what the hub stores and looks bridges up by.
    public var hash: String {
        SHA256.hash(data: Data(text.utf8)).map { String(format: "%02x", $0) }.joined()
    }
}
