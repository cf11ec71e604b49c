/// How long a device keeps its side of a bond, and so how long the bridge keeps its own (a profile's `bonding`).
///
/// Some devices hold a bond for good once paired; others forget it when a session ends (Omron's FE4A cuffs of the
/// WLD3.0/WLD4.0 connection types). Offering such a device the key it has forgotten fails security and the device
/// hangs up, so the bridge drops its own bond after each session and pairs again on the next connection.
public enum BondRenewal: String, Sendable, Hashable, Codable, CaseIterable {
    /// Pair once; the bond is kept and reused on every later connection.
    case once
    /// The device forgets the bond after each session: the bridge removes its own bond when the session ends, so
    /// the next connection pairs afresh.
    case everySession
}
