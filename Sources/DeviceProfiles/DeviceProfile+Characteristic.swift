public import BridgeFoundation
public import FrameDecoding
public import GATTDecoding

extension DeviceProfile {
    /// One GATT characteristic the profile uses.
    public struct Characteristic: Sendable, Hashable {
        public enum Use: String, Sendable, Hashable, CaseIterable {
            /// `write`: a characteristic the session writes; nothing subscribes to or reads it.
            case notify, indicate, read, write
        }

        /// What the pipeline does with the decoded value, as the profile declares it (`role`); resolved with the
        /// decoder into a ``Reading`` when the profile loads.
        public enum Role: String, Sendable, Hashable, CaseIterable {
            /// A final measurement: its samples are stored.
            case measurement
            /// Live progress (Intermediate Temperature, Intermediate Cuff Pressure): decoded, never stored;
            /// it shows that the next final measurement is being taken now.
            case intermediate
            /// Extra information for the measurement with the same sequence number (Glucose Measurement
            /// Context); merged into that measurement's metadata.
            case context
            /// A control point's requests and responses (Record Access Control Point): they start and end a
            /// stored-record download.
            case controlPoint
            /// A Device Information string that goes onto the device identity (manufacturer, model, …).
            case identity
            /// Decoded and logged only (features, battery level, sensor location).
            case info
            /// The device's own clock (Current Time, Date Time), read at connect: the measured difference to the
            /// receive time goes onto the session's samples (`deviceClockOffset`) and, when the device clock is
            /// evidently wrong, corrects them instead of an estimate.
            case clock
        }

        public var uuid: BluetoothUUID
        public var use: Use
        /// What reads the value and what its payload is for, resolved when the profile loads: the payload type
        /// already known to play its role.
        public var reading: Reading
        /// Vendor quirks undone before the decoder reads the value (`quirks` in the entry), bound to the payload
        /// type that undoes them.
        public var overlay: QuirkOverlay?

        public init(uuid: BluetoothUUID, use: Use, reading: Reading, overlay: QuirkOverlay? = nil) {
            self.uuid = uuid
            self.use = use
            self.reading = reading
            self.overlay = overlay
        }

        /// The declared role (a written characteristic and frames make measurements).
        public var role: Role { reading.role }
        /// The decoder that reads the value; nil when frames read it or nothing does (`write`).
        public var decoder: PayloadDecoder? { reading.decoder }
        /// The profile's own frames that read the value instead of a compiled decoder (`frames`).
        public var frames: FrameSet? {
            if case .frames(let frames, _) = reading { return frames }
            return nil
        }
        /// A value carries several frames of this many bytes back to back (`frameLength`): each is decoded, in
        /// order. Nil: the value is one frame.
        public var frameLength: Int? {
            if case .frames(_, let length) = reading { return length }
            return nil
        }
        /// The vendor quirks of the entry (empty when none).
        public var quirks: PayloadQuirks { overlay?.quirks ?? PayloadQuirks() }
    }
}
