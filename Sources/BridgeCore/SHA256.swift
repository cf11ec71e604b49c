public import Foundation

/// SHA-256 (FIPS 180-4), used to derive stable sample ids from idempotency keys.
public enum SHA256 {
    fileprivate static let k: [UInt32] = [
        0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
        0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
        0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
        0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
        0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
        0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
        0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
        0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
    ]

    /// The 32-byte digest of `bytes`.
    public static func hash<Bytes: Collection>(_ bytes: Bytes) -> [UInt8] where Bytes.Element == UInt8 {
        let h =
            bytes.withContiguousStorageIfAvailable { digest(UnsafeRawBufferPointer($0)) }
            ?? Array(bytes).withUnsafeBytes { digest($0) }
        var result = [UInt8](repeating: 0, count: 32)
        for (index, word) in [h.0, h.1, h.2, h.3, h.4, h.5, h.6, h.7].enumerated() {
            for byte in 0..<4 { result[index * 4 + byte] = UInt8(truncatingIfNeeded: word >> UInt32(24 - 8 * byte)) }
        }
        return result
    }

    /// A name-based UUID from the first 16 bytes of the digest of `name` (version 8 layout, RFC 9562).
    public static func uuid(for name: String) -> UUID {
        var name = name
        let h = name.withUTF8 { digest(UnsafeRawBufferPointer($0)) }
        func byte(_ word: UInt32, _ index: Int) -> UInt8 { UInt8(truncatingIfNeeded: word >> UInt32(24 - 8 * index)) }
        return UUID(
            uuid: (
                byte(h.0, 0), byte(h.0, 1), byte(h.0, 2), byte(h.0, 3), byte(h.1, 0), byte(h.1, 1),
                byte(h.1, 2) & 0x0F | 0x80, byte(h.1, 3),
                byte(h.2, 0) & 0x3F | 0x80, byte(h.2, 1), byte(h.2, 2), byte(h.2, 3),
                byte(h.3, 0), byte(h.3, 1), byte(h.3, 2), byte(h.3, 3)
            )
        )
    }

    typealias Words = (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32)

    static let initialWords: Words = (
        0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19
    )

    /// An incremental digest: feed bytes in pieces, copy the state to hash several messages that share a prefix
    /// (the samples of one payload share all of their key but the type), finish for the same words
    /// ``digest(_:)`` gives for the concatenation.
    struct Hasher: Sendable {
        private var h: Words = SHA256.initialWords
        /// The bytes of the current, incomplete block (fewer than 64).
        private var pending: [UInt8] = []
        private var count: UInt64 = 0

        init() { pending.reserveCapacity(64) }

        mutating func update(_ bytes: UnsafeRawBufferPointer) {
            count &+= UInt64(bytes.count)
            var offset = 0
            withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { w in
                SHA256.k.withUnsafeBufferPointer { k in
                    if !pending.isEmpty {
                        let take = min(64 - pending.count, bytes.count)
                        pending.append(contentsOf: bytes[0..<take])
                        offset = take
                        guard pending.count == 64 else { return }
                        pending.withUnsafeBytes { SHA256.compress(&h, $0, w, k) }
                        pending.removeAll(keepingCapacity: true)
                    }
                    while bytes.count - offset >= 64 {
                        SHA256.compress(&h, UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + 64)]), w, k)
                        offset += 64
                    }
                }
            }
            if offset < bytes.count { pending.append(contentsOf: bytes[offset...]) }
        }

        mutating func update(_ text: String) {
            var text = text
            text.withUTF8 { update(UnsafeRawBufferPointer($0)) }
        }

        /// The digest of everything fed so far (the hasher itself is unchanged).
        func finalize() -> Words {
            var h = self.h
            let rest = pending.count
            withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { w in
                SHA256.k.withUnsafeBufferPointer { k in
                    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 128) { tail in
                        for index in 0..<128 { tail[index] = 0 }
                        for index in 0..<rest { tail[index] = pending[index] }
                        tail[rest] = 0x80
                        let tailLength = rest + 9 <= 64 ? 64 : 128
                        let bitLength = count &* 8
                        for index in 0..<8 {
                            tail[tailLength - 1 - index] = UInt8(truncatingIfNeeded: bitLength >> UInt64(8 * index))
                        }
                        let raw = UnsafeRawBufferPointer(tail)
                        SHA256.compress(&h, UnsafeRawBufferPointer(rebasing: raw[0..<64]), w, k)
                        if tailLength == 128 {
                            SHA256.compress(&h, UnsafeRawBufferPointer(rebasing: raw[64..<128]), w, k)
                        }
                    }
                }
            }
            return h
        }
    }

    /// The digest as eight big-endian words, without intermediate arrays: full blocks are read in place, the
    /// padded tail (one or two blocks) is built in a stack buffer.
    static func digest(_ message: UnsafeRawBufferPointer) -> Words {
        var h: Words = (
            0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19
        )
        let count = message.count
        let fullBlocks = count / 64
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { w in
            k.withUnsafeBufferPointer { k in
                for block in 0..<fullBlocks {
                    compress(&h, UnsafeRawBufferPointer(rebasing: message[(block * 64)..<(block * 64 + 64)]), w, k)
                }
                withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 128) { tail in
                    let rest = count - fullBlocks * 64
                    for index in 0..<128 { tail[index] = 0 }
                    for index in 0..<rest { tail[index] = message[fullBlocks * 64 + index] }
                    tail[rest] = 0x80
                    let tailLength = rest + 9 <= 64 ? 64 : 128
                    let bitLength = UInt64(count) &* 8
                    for index in 0..<8 {
                        tail[tailLength - 1 - index] = UInt8(truncatingIfNeeded: bitLength >> UInt64(8 * index))
                    }
                    let raw = UnsafeRawBufferPointer(tail)
                    compress(&h, UnsafeRawBufferPointer(rebasing: raw[0..<64]), w, k)
                    if tailLength == 128 { compress(&h, UnsafeRawBufferPointer(rebasing: raw[64..<128]), w, k) }
                }
            }
        }
        return h
    }

    @inline(__always)
    fileprivate static func compress(
        _ h: inout Words,
        _ chunk: UnsafeRawBufferPointer,
        _ w: UnsafeMutableBufferPointer<UInt32>,
        _ k: UnsafeBufferPointer<UInt32>
    ) {
        for i in 0..<16 {
            let base = i * 4
            w[i] =
                UInt32(chunk[base]) << 24 | UInt32(chunk[base + 1]) << 16 | UInt32(chunk[base + 2]) << 8
                | UInt32(chunk[base + 3])
        }
        for i in 16..<64 {
            let s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3)
            let s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10)
            w[i] = w[i - 16] &+ s0 &+ w[i - 7] &+ s1
        }
        var (a, b, c, d, e, f, g, hh) = h
        for i in 0..<64 {
            let s1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)
            let choice = (e & f) ^ (~e & g)
            let t1 = hh &+ s1 &+ choice &+ k[i] &+ w[i]
            let s0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)
            let majority = (a & b) ^ (a & c) ^ (b & c)
            let t2 = s0 &+ majority
            (hh, g, f, e, d, c, b, a) = (g, f, e, d &+ t1, c, b, a, t1 &+ t2)
        }
        h = (h.0 &+ a, h.1 &+ b, h.2 &+ c, h.3 &+ d, h.4 &+ e, h.5 &+ f, h.6 &+ g, h.7 &+ hh)
    }

    private static func rotr(_ value: UInt32, _ count: UInt32) -> UInt32 {
        value >> count | value << (32 - count)
    }
}
