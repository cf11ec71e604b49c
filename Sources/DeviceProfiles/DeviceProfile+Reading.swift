public import BridgeCore
public import FrameDecoding
public import GATTDecoding

extension DeviceProfile.Characteristic {
    /// What reads a characteristic's value and what the value is for, resolved when the profile loads.
    ///
    /// Each case holds the payload type already checked to play its role, so the pipeline decodes straight into
    /// the role's protocol and never asks a decoded payload what it is: a profile whose decoder cannot play its
    /// role is a profile error at load (``init(_:role:multiPacket:)``), never silence at run time.
    public enum Reading: Sendable, Hashable {
        /// A final measurement: its samples are stored. `packets` merges values split over two packets
        /// (`multiPacket`).
        case measurement(any SampleProducing.Type, packets: (any MultiPacketPayload.Type)? = nil)
        /// Live progress: decoded, never stored; marks the next final measurement as live.
        case intermediate(PayloadDecoder)
        /// Metadata for the measurement with the same sequence number.
        case context(any SampleAnnotating.Type)
        /// Requests the bridge writes and responses the device sends: they start and end a stored-record download.
        case controlPoint(any ControlPointMessage.Type)
        /// A Device Information string for the device identity.
        case identity(any DeviceIdentityString.Type)
        /// The device's own clock, read at connect.
        case clock(any DeviceClockReading.Type)
        /// The device's battery charge, kept as the device's battery level (an `info` decoder that reports one).
        case battery(any BatteryReporting.Type)
        /// Decoded and logged only.
        case info(PayloadDecoder)
        /// The profile's own frames (measurements; a frame's final conditions mark intermediate values), several
        /// of `frameLength` bytes back to back in one value when it is given.
        case frames(FrameSet, frameLength: Int? = nil)
        /// Written by the session; nothing reads it.
        case written

        /// The reading of `decoder` in `role`.
        /// - Throws: ``DeviceProfileError`` whose field is the entry's key at fault (`decoder` or `multiPacket`)
        ///   when the decoder's payload cannot play the role, naming the decoders that can.
        public init(_ decoder: PayloadDecoder, role: Role, multiPacket: Bool = false) throws(DeviceProfileError) {
            let type = decoder.type
            func needs<Capable>(
                _ capable: Capable.Type,
                _ problem: String,
                field: String = "decoder"
            ) throws(DeviceProfileError) -> Capable {
                if let typed = type as? Capable { return typed }
                let able = DecoderCatalog.all.filter { $0 is Capable }.map { $0.identifier }.joined(separator: ", ")
                let which =
                    field == "decoder"
                    ? "; role \(role.rawValue) needs one of \(able)" : " (\(field) decoders: \(able))"
                throw DeviceProfileError(field: field, message: "\(decoder.identifier) \(problem)\(which)")
            }
            switch role {
            case .measurement:
                let producing = try needs((any SampleProducing.Type).self, "gives no samples")
                var packets: (any MultiPacketPayload.Type)?
                if multiPacket {
                    packets = try needs(
                        (any MultiPacketPayload.Type).self,
                        "values are never split over packets",
                        field: "multiPacket"
                    )
                }
                self = .measurement(producing, packets: packets)
                return
            case .intermediate: self = .intermediate(decoder)
            case .context: self = .context(try needs((any SampleAnnotating.Type).self, "gives no context fields"))
            case .controlPoint:
                self = .controlPoint(try needs((any ControlPointMessage.Type).self, "is not a control point"))
            case .identity:
                self = .identity(try needs((any DeviceIdentityString.Type).self, "is not a Device Information string"))
            case .clock: self = .clock(try needs((any DeviceClockReading.Type).self, "does not read a device clock"))
            case .info:
                self = (type as? any BatteryReporting.Type).map { .battery($0) } ?? .info(decoder)
            }
            if multiPacket {
                throw DeviceProfileError(
                    field: "multiPacket",
                    message: "only a measurement's values are merged from packets (role \(role.rawValue))"
                )
            }
        }

        /// The role the profile declares for this reading.
        public var role: Role {
            switch self {
            case .measurement, .frames, .written: .measurement
            case .intermediate: .intermediate
            case .context: .context
            case .controlPoint: .controlPoint
            case .identity: .identity
            case .clock: .clock
            case .info, .battery: .info
            }
        }

        /// The decoder that reads the value; nil for frames and written characteristics.
        public var decoder: PayloadDecoder? {
            switch self {
            case .measurement(let type, _): PayloadDecoder(type)
            case .intermediate(let decoder), .info(let decoder): decoder
            case .context(let type): PayloadDecoder(type)
            case .controlPoint(let type): PayloadDecoder(type)
            case .identity(let type): PayloadDecoder(type)
            case .clock(let type): PayloadDecoder(type)
            case .battery(let type): PayloadDecoder(type)
            case .frames, .written: nil
            }
        }

        // MARK: - Hashable

        public static func == (lhs: Reading, rhs: Reading) -> Bool {
            switch (lhs, rhs) {
            case (.frames(let left, let leftLength), .frames(let right, let rightLength)):
                left == right && leftLength == rightLength
            case (.measurement(_, let left), .measurement(_, let right)):
                lhs.decoder == rhs.decoder && (left == nil) == (right == nil)
            default:
                lhs.role == rhs.role && lhs.decoder == rhs.decoder && lhs.frames == rhs.frames
            }
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(role)
            hasher.combine(decoder)
        }

        private var frames: FrameSet? {
            if case .frames(let frames, _) = self { return frames }
            return nil
        }
    }
}
