public import BridgeFoundation

/// The parameters of a Eufy P2 / P2 Pro (T9148 / T9149) handshake step (`eufyHandshake` in a profile's session):
/// which characteristic the bridge writes its C0 and C2 messages to, which one the scale answers C1 and C3 on,
/// how long to wait for each answer and how long to pause between the segments of one message.
///
/// The protocol (``EufyHandshakeSession``) comes from bdr99/eufylife-ble-client (`auth_handler.py`, `util.py`)
/// and ble-scale-sync (`src/scales/eufy-p2.ts`), which ports it; see `docs/eufy-p2.md`.
public struct EufyHandshake: Sendable, Hashable {
    /// FFF1 on the scale.
    public var write: BluetoothUUID
    /// FFF4 on the scale: C1 and C3 arrive here as notifications.
    public var answers: BluetoothUUID
    /// Seconds to wait for the scale's C1 after the last C0 segment, and for its C3 after the last C2 segment.
    public var timeout: Double
    /// Seconds between two segments of one message: both peers wait a second, since shorter gaps made some
    /// T9149 units drop the link (ble-scale-sync's note on `EUFY_WRITE_DELAY_MS`).
    public var gap: Double

    public init(write: BluetoothUUID, answers: BluetoothUUID, timeout: Double = 10, gap: Double = 1) {
        self.write = write
        self.answers = answers
        self.timeout = timeout
        self.gap = gap
    }
}
