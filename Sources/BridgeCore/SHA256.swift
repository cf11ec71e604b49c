import Crypto
public import Foundation

/// SHA-256 (FIPS 180-4), used to derive stable sample ids from idempotency keys: swift-crypto's `SHA256`
/// (BoringSSL's assembly on Linux) behind the few calls CareBridge makes.
public enum SHA256 {
    /// The 32-byte digest of `bytes`.
    public static func hash<Bytes: Collection>(_ bytes: Bytes) -> [UInt8] where Bytes.Element == UInt8 {
        var hasher = Crypto.SHA256()
        if bytes.withContiguousStorageIfAvailable({ hasher.update(bufferPointer: UnsafeRawBufferPointer($0)) }) == nil {
            Array(bytes).withUnsafeBytes { hasher.update(bufferPointer: $0) }
        }
        return Array(hasher.finalize())
    }

    /// A name-based UUID from the first 16 bytes of the digest of `name` (version 8 layout, RFC 9562).
    public static func uuid(for name: String) -> UUID {
        var name = name
        let digest = name.withUTF8 { SHA256.digest(UnsafeRawBufferPointer($0)) }
        return digest.withUnsafeBytes { d in
            UUID(
                uuid: (
                    d[0], d[1], d[2], d[3], d[4], d[5], d[6] & 0x0F | 0x80, d[7],
                    d[8] & 0x3F | 0x80, d[9], d[10], d[11], d[12], d[13], d[14], d[15]
                )
            )
        }
    }

    /// A 32-byte digest.
    typealias Digest = Crypto.SHA256.Digest

    /// The digest of one message.
    static func digest(_ message: UnsafeRawBufferPointer) -> Digest {
        var hasher = Crypto.SHA256()
        hasher.update(bufferPointer: message)
        return hasher.finalize()
    }

    /// An incremental digest: feed bytes in pieces, copy the state to hash several messages that share a prefix
    /// (the samples of one payload share all of their key but the type), finish for the same digest
    /// ``digest(_:)`` gives for the concatenation. A copy is independent (swift-crypto's digest state is copied
    /// on write).
    struct Hasher {
        private var state = Crypto.SHA256()

        init() {}

        mutating func update(_ bytes: UnsafeRawBufferPointer) {
            state.update(bufferPointer: bytes)
        }

        mutating func update(_ text: String) {
            var text = text
            text.withUTF8 { state.update(bufferPointer: UnsafeRawBufferPointer($0)) }
        }

        func finalize() -> Digest {
            state.finalize()
        }
    }
}
