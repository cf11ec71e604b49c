public import BridgeCore
public import BridgeFoundation
import GATTDecoding

/// What the bridge does after connecting to a device, as data from its profile (`session` in a
/// `Devices/*.json` file): ordered steps, captures that run on every value, and the variables kept between
/// sessions (a download cursor, a consent code).
///
/// ``SessionMachine`` runs it without any I/O; the transports (BlueZ, replay) carry out its actions.
public struct SessionScript: Sendable, Hashable {
    public var steps: [SessionStep]
    /// Captures applied to every value of their characteristic during the session.
    public var captures: [CharacteristicCapture]
    /// Variables saved at the end of a session that completed, and loaded at the start of the next.
    public var persist: [String]
    /// When set (`userIndex`), the persisted variables are kept per value of this variable: a session of user 2
    /// loads and saves `lastRecord@2`, so two users of one device each have their own download cursor. Without a
    /// value (a single-user device) the plain names are used.
    public var persistPer: String?
    /// Download progress: values of `characteristic` counted against the number in `total` (set by a capture,
    /// e.g. a RACP number-of-records response), reported as ``SessionAction/progress(done:total:)``.
    public var progress: Progress?
    /// The profile's control points (``ControlPoint``): a write to one that requests stored records starts a
    /// download, its final response ends it.
    public var controlPoints: [ControlPoint] = []

    /// The name `variable` is persisted under, given the session's `variables` (``persistPer``).
    public func persistedName(_ variable: String, in variables: SessionVariables) -> String {
        guard let key = persistPer, let value = variables[key] else { return variable }
        return "\(variable)@\(value.description)"
    }

    public struct Progress: Sendable, Hashable {
        public var total: String
        public var characteristic: BluetoothUUID
        /// Only values that pass are counted (a record's first segment, not each of its segments).
        public var when: ValuePattern

        public init(total: String, characteristic: BluetoothUUID, when: ValuePattern = ValuePattern()) {
            self.total = total
            self.characteristic = characteristic
            self.when = when
        }
    }

    public init(steps: [SessionStep] = [], captures: [CharacteristicCapture] = [], persist: [String] = []) {
        self.steps = steps
        self.captures = captures
        self.persist = persist
    }

    public var isEmpty: Bool { steps.isEmpty }

    /// A capture bound to a characteristic, applied to its values that pass `when` (by default every value): a
    /// GHS record number is read from a record's first segment only (`when`: prefix 01, mask 01), since the
    /// segments after it carry other bytes at that offset.
    public struct CharacteristicCapture: Sendable, Hashable {
        public var characteristic: BluetoothUUID
        public var capture: SessionCapture
        public var when: ValuePattern

        public init(characteristic: BluetoothUUID, capture: SessionCapture, when: ValuePattern = ValuePattern()) {
            self.characteristic = characteristic
            self.capture = capture
            self.when = when
        }
    }

    /// Every characteristic a step writes (for `carebridge devices` and the transport's wait for objects).
    public var writtenCharacteristics: Set<BluetoothUUID> {
        var uuids: Set<BluetoothUUID> = []
        func visit(_ steps: [SessionStep]) {
            for step in steps {
                switch step {
                case .write(let write): uuids.insert(write.characteristic)
                case .branch(_, let then, let otherwise):
                    visit(then)
                    visit(otherwise)
                case .repeatUntil(let loop): visit(loop.steps)
                case .omronMemoryMap(let map):
                    uuids.formUnion(map.channels.tx)
                    if let unlock = map.channels.unlock { uuids.insert(unlock) }
                case .eufyHandshake(let handshake): uuids.insert(handshake.write)
                case .viatomFiles(let download): uuids.insert(download.write)
                default: break
                }
            }
        }
        visit(steps)
        return uuids
    }

    /// Every characteristic a step subscribes to, reads or writes.
    public var usedCharacteristics: Set<BluetoothUUID> {
        var uuids: Set<BluetoothUUID> = []
        func visit(_ steps: [SessionStep]) {
            for step in steps {
                switch step {
                case .subscribe(let uuid): uuids.insert(uuid)
                case .read(let read): uuids.insert(read.characteristic)
                case .write(let write): uuids.insert(write.characteristic)
                case .await(let wait): uuids.insert(wait.characteristic)
                case .branch(_, let then, let otherwise):
                    visit(then)
                    visit(otherwise)
                case .repeatUntil(let loop):
                    uuids.insert(loop.until.characteristic)
                    visit(loop.steps)
                case .omronMemoryMap(let map):
                    uuids.formUnion(map.channels.tx + map.channels.rx)
                    if let unlock = map.channels.unlock { uuids.insert(unlock) }
                case .eufyHandshake(let handshake): uuids.formUnion([handshake.write, handshake.answers])
                case .viatomFiles(let download): uuids.formUnion([download.write, download.notify])
                case .delay, .set: break
                }
            }
        }
        visit(steps)
        return uuids
    }
}

/// One step of a ``SessionScript``.
public indirect enum SessionStep: Sendable, Hashable, CustomStringConvertible {
    /// Enable notifications or indications (the profile's own subscriptions are already on).
    case subscribe(BluetoothUUID)
    case read(Read)
    case write(Write)
    case await(Await)
    /// Wait this many seconds.
    case delay(Double)
    /// Run `steps` every `every` seconds until a value matches `until` (or fail after `timeout`).
    case repeatUntil(Repeat)
    case branch(SessionCondition, then: [SessionStep], else: [SessionStep])
    /// Set variables: to a number, to another variable's value, or remove them (nil).
    case set([String: Assignment])
    /// Download an Omron memory map (``OmronMemorySession``): the profile's `omron` section.
    case omronMemoryMap(OmronMemoryMap)
    /// Authenticate to a Eufy P2 / P2 Pro scale (``EufyHandshakeSession``): the profile's `eufyHandshake` step.
    case eufyHandshake(EufyHandshake)
    /// Download a Viatom oximeter's recordings (``ViatomFileSession``): the profile's `viatom` section.
    case viatomFiles(ViatomDownload)

    public enum Assignment: Sendable, Hashable {
        case value(SessionValue)
        case variable(String)
        case remove
    }

    public struct Read: Sendable, Hashable {
        public var characteristic: BluetoothUUID
        /// Reads the characteristic's descriptors of this UUID instead of its value (each value is captured).
        public var descriptor: BluetoothUUID?
        public var capture: [SessionCapture]
        /// A device without the characteristic or descriptor (or refusing the read) is not an error.
        public var optional: Bool

        public init(
            characteristic: BluetoothUUID,
            descriptor: BluetoothUUID? = nil,
            capture: [SessionCapture] = [],
            optional: Bool = false
        ) {
            self.characteristic = characteristic
            self.descriptor = descriptor
            self.capture = capture
            self.optional = optional
        }
    }

    public struct Write: Sendable, Hashable {
        public var characteristic: BluetoothUUID
        public var value: ByteTemplate
        /// Write request (acknowledged) rather than write command.
        public var withResponse: Bool

        public init(characteristic: BluetoothUUID, value: ByteTemplate, withResponse: Bool = true) {
            self.characteristic = characteristic
            self.value = value
            self.withResponse = withResponse
        }
    }

    public struct Await: Sendable, Hashable {
        public var characteristic: BluetoothUUID
        public var pattern: BytePattern
        /// Seconds.
        public var timeout: Double
        public var capture: [SessionCapture]
        /// A timeout moves on to the next step instead of failing the session.
        public var optional: Bool

        public init(
            characteristic: BluetoothUUID,
            pattern: BytePattern,
            timeout: Double = 30,
            capture: [SessionCapture] = [],
            optional: Bool = false
        ) {
            self.characteristic = characteristic
            self.pattern = pattern
            self.timeout = timeout
            self.capture = capture
            self.optional = optional
        }
    }

    public struct ValueMatch: Sendable, Hashable {
        public var characteristic: BluetoothUUID
        public var pattern: BytePattern

        public init(characteristic: BluetoothUUID, pattern: BytePattern) {
            self.characteristic = characteristic
            self.pattern = pattern
        }

        public func matches(_ value: CharacteristicValue) -> Bool {
            value.characteristic == characteristic && value.delivery != .read && pattern.matches(value.bytes)
        }
    }

    public struct Repeat: Sendable, Hashable {
        public var steps: [SessionStep]
        /// Seconds between the end of one round and the start of the next.
        public var every: Double
        public var until: ValueMatch
        /// Seconds; nil waits for as long as the link is up.
        public var timeout: Double?

        public init(steps: [SessionStep], every: Double, until: ValueMatch, timeout: Double? = nil) {
            self.steps = steps
            self.every = every
            self.until = until
            self.timeout = timeout
        }
    }

    public var description: String {
        switch self {
        case .subscribe(let uuid): "subscribe \(uuid)"
        case .read(let read): "read \(read.characteristic)" + (read.descriptor.map { " descriptor \($0)" } ?? "")
        case .write(let write): "write \(write.characteristic) \(write.value)"
        case .await(let wait): "await \(wait.characteristic) '\(wait.pattern)'"
        case .delay(let seconds): "delay \(seconds) s"
        case .repeatUntil(let loop):
            "repeat every \(loop.every) s until \(loop.until.characteristic) '\(loop.until.pattern)'"
        case .branch(let condition, _, _): "if \(condition)"
        case .set(let assignments): "set \(assignments.keys.sorted().joined(separator: ", "))"
        case .omronMemoryMap(let map): "omron memory map \(map.model)"
        case .eufyHandshake(let handshake): "eufy handshake on \(handshake.write) / \(handshake.answers)"
        case .viatomFiles(let download): "viatom files \(download.model)"
        }
    }
}
