/// A seeded generator (SplitMix64): the same seed gives the same values on every run and platform, so a
/// property or fuzz test that fails can be repeated from the seed it reports.
package struct SplitMix64: RandomNumberGenerator, Sendable {
    package var state: UInt64

    package init(state: UInt64) { self.state = state }

    package init(seed: UInt64) { self.state = seed }

    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A random byte.
    package mutating func byte() -> UInt8 { UInt8(truncatingIfNeeded: next()) }

    /// A value in `0..<bound`.
    package mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
}
