public import BridgeFoundation
public import GATTDecoding

extension SessionScript {
    /// A characteristic of the profile in the `controlPoint` role, with the message type its profile resolved at
    /// load: how the session machine knows that a write of its own starts a stored-record download and that a
    /// value ends it (``SessionAction/download(_:)``).
    public struct ControlPoint: Sendable, Hashable {
        public var characteristic: BluetoothUUID
        /// The control point's messages (requests written, responses received).
        public var message: any ControlPointMessage.Type

        public init(characteristic: BluetoothUUID, message: any ControlPointMessage.Type) {
            self.characteristic = characteristic
            self.message = message
        }

        /// Whether `bytes`, written to the control point, ask the device to report stored records.
        public func requestsStoredRecords(_ bytes: [UInt8]) -> Bool {
            (try? message.decode(bytes))?.requestsStoredRecords == true
        }

        /// Whether `bytes`, received on the control point, are the device's final response to a procedure that
        /// reports stored records.
        public func endsRecordReport(_ bytes: [UInt8]) -> Bool {
            (try? message.decode(bytes))?.endsRecordReport == true
        }

        // MARK: - Hashable

        public static func == (lhs: ControlPoint, rhs: ControlPoint) -> Bool {
            lhs.characteristic == rhs.characteristic && ObjectIdentifier(lhs.message) == ObjectIdentifier(rhs.message)
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(characteristic)
            hasher.combine(ObjectIdentifier(message))
        }
    }

    /// The control point on `characteristic`, if the profile has one there.
    public func controlPoint(_ characteristic: BluetoothUUID) -> ControlPoint? {
        controlPoints.first { $0.characteristic == characteristic }
    }
}
