public import BridgeCore
public import BridgeFoundation

/// How a Viatom oximeter (Wellue O2Ring, Checkme O2) is read: a profile's `viatom` section, run by
/// ``ViatomFileSession`` and read by ``ViatomRecordReader``.
///
/// The characteristics are the vendor service's (14839AC4-7D7E-415C-9A42-167340CF2339): requests are written to
/// one, responses notified on the other (MackeyStingray/o2r `o2r/defines.py`, commit e8ad57f9).
public struct ViatomDownload: Sendable, Hashable {
    /// Named in messages.
    public var model: String
    public var write: BluetoothUUID
    public var notify: BluetoothUUID
    /// Seconds to wait for a whole response.
    public var timeout: Double
    /// Times a request is sent again after a timeout or a damaged response, before the session fails.
    public var retries: Int
    /// Ask for the live values once the files are read (a spot SpO2 and pulse rate while the ring is worn).
    public var liveReading: Bool

    /// The persisted variable that lists the files already downloaded (their names, comma-separated).
    public static let cursorVariable = "viatomFiles"

    public static let service = BluetoothUUID("14839AC4-7D7E-415C-9A42-167340CF2339")!
    public static let defaultWrite = BluetoothUUID("8B00ACE7-EB0B-49B0-BBE9-9AEE0A26E1A3")!
    public static let defaultNotify = BluetoothUUID("0734594A-A8E7-4B1A-A6B1-CD5243059A57")!

    public init(
        model: String,
        write: BluetoothUUID = Self.defaultWrite,
        notify: BluetoothUUID = Self.defaultNotify,
        timeout: Double = 10,
        retries: Int = 2,
        liveReading: Bool = true
    ) {
        self.model = model
        self.write = write
        self.notify = notify
        self.timeout = timeout
        self.retries = retries
        self.liveReading = liveReading
    }

    /// The file names a cursor value lists.
    public static func names(in value: SessionValue?) -> [String] {
        guard case .bytes(let bytes) = value else { return [] }
        return String(decoding: bytes, as: UTF8.self).split(separator: ",").map(String.init)
    }

    /// The cursor value listing `names`.
    public static func cursor(_ names: [String]) -> SessionValue {
        .bytes(Array(names.joined(separator: ",").utf8))
    }
}
